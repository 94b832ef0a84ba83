/**
 * `npm run audit -- versions`: requests per key and API version, from the audit log, on both
 * databases. Requests sent through the service pinned to 2026-11-01 (reads through the read
 * writer, writes in their transaction) show up under their key and version; rows from before
 * migration 0006 still read, as "unrecorded"; `--since` limits the window; no PHI is printed.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { versionsCli } from '../../server/audit/cli.js';
import { AuditWriter, recordAudit } from '../../server/audit/index.js';
import { versionUsage } from '../../server/audit/versions.js';
import { migrate } from '../../server/db/migrate.js';
import { migrations } from '../../server/db/migrations/index.js';
import { newId } from '../../server/ids.js';
import { buildTestApp } from '../support/app.js';
import { auditEntry } from '../support/audit-entries.js';
import { describeEachDatabase, openTestDb, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

const PATIENT = {
  name: { family: 'Rivera', given: ['Ana'] },
  birth_date: '1987-04-12',
  email: 'ana.rivera@example.com',
};
const PHI = ['Rivera', 'Ana', '1987-04-12', 'ana.rivera@example.com'];

function lines(): { out: string[]; io: { out: (l: string) => void; err: (l: string) => void } } {
  const out: string[] = [];
  return { out, io: { out: (l) => out.push(l), err: (l) => out.push(l) } };
}

await describeEachDatabase('audit versions report', (dialect) => {
  const ctx = useTestDb(dialect);

  it('lists a key that used 2026-11-01, beside one on the latest, from real requests', async () => {
    const writer = new AuditWriter(ctx.db);
    const t = await buildTestApp({ db: ctx.db, audit: writer });
    try {
      const old = await makeKey(ctx.db);
      const current = await makeKey(ctx.db);
      const send = (secret: string, version: string, method: 'GET' | 'POST', url: string) =>
        t.app.inject({
          method,
          url,
          headers: {
            authorization: `Bearer ${secret}`,
            'patientcare-version': version,
            ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
          },
          ...(method === 'POST' ? { payload: PATIENT } : {}),
        });
      const created = await send(old.secret, '2026-11-01', 'POST', '/v1/patients');
      expect(created.statusCode).toBe(200);
      const id = created.json().id as string;
      for (let i = 0; i < 3; i++)
        expect((await send(old.secret, '2026-11-01', 'GET', `/v1/patients/${id}`)).statusCode).toBe(
          200,
        );
      expect(
        (await send(current.secret, '2026-12-01', 'GET', `/v1/patients/${id}`)).statusCode,
      ).toBe(200);
      await writer.flush();

      const uses = await versionUsage(ctx.db);
      expect(uses.map(({ lastAt: _, ...u }) => u)).toEqual(
        [
          { keyId: old.id, apiVersion: '2026-11-01', requests: 4 },
          { keyId: current.id, apiVersion: '2026-12-01', requests: 1 },
        ].sort((a, b) => (a.keyId < b.keyId ? -1 : 1)),
      );

      const printed = lines();
      expect(
        await versionsCli(
          ctx.db,
          { json: false, now: Date.now(), sunsets: { '2026-11-01': '2027-06-01' } },
          printed.io,
        ),
      ).toBe(0);
      const text = printed.out.join('\n');
      expect(text).toMatch(
        new RegExp(`${old.id} +2026-11-01 +4 +\\S+ +deprecated, sunset 2027-06-01`),
      );
      expect(text).toMatch(new RegExp(`${current.id} +2026-12-01 +1 `));
      for (const phi of [...PHI, id]) expect(text).not.toContain(phi);
    } finally {
      await t.close();
      await writer.close();
    }
  });

  it('--since leaves out older requests', async () => {
    const now = Date.UTC(2027, 0, 31);
    const day = 86_400_000;
    const recent = { ...auditEntry(newId('pat')), at: now - 2 * day, apiVersion: '2026-11-01' };
    const stale = { ...auditEntry(newId('pat')), at: now - 40 * day, apiVersion: '2026-11-01' };
    for (const e of [recent, stale]) await ctx.db.transaction((tx) => recordAudit(tx, e));
    const week = lines();
    await versionsCli(ctx.db, { json: true, now, sinceDays: 7 }, week.io);
    expect(week.out.map((l) => JSON.parse(l))).toEqual([
      { keyId: recent.keyId, apiVersion: '2026-11-01', requests: 1, lastAt: recent.at },
    ]);
    const all = lines();
    await versionsCli(ctx.db, { json: true, now }, all.io);
    const keys = all.out.map((l) => JSON.parse(l).keyId);
    expect(keys).toEqual(expect.arrayContaining([recent.keyId, stale.keyId]));
  });
});

await describeEachDatabase('audit rows from before migration 0006', (dialect) => {
  const ctx = useTestDb(dialect, { migrate: false });

  it('still read after it, counted as unrecorded', async () => {
    await migrate(ctx.db, migrations.slice(0, 5));
    const before = auditEntry(newId('pat'));
    await ctx.db.run(
      `INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids)
       VALUES ('aud_01JD0000000000000000000000', $1, $2, $3, $4, NULL, 'success', '[]')`,
      [Date.now(), before.keyId, before.operationId, before.requestId],
    );
    expect(await migrate(ctx.db, migrations.slice(0, 6))).toEqual([6]);
    // Today's writer needs today's schema: `actor` (0009) and the hash chain's head (0010).
    await migrate(ctx.db);
    const after = { ...auditEntry(newId('pat')), keyId: before.keyId, apiVersion: '2026-12-01' };
    await ctx.db.transaction((tx) => recordAudit(tx, after));
    const uses = await versionUsage(ctx.db);
    expect(uses.map((u) => [u.keyId, u.apiVersion, u.requests])).toEqual([
      [before.keyId, '2026-12-01', 1],
      [before.keyId, null, 1],
    ]);
    const printed = lines();
    await versionsCli(ctx.db, { json: false, now: Date.now() }, printed.io);
    expect(printed.out.join('\n')).toMatch(/unrecorded +1 /);
  });
});

describe('npm run audit -- versions (scripts/audit.ts via tsx)', () => {
  const run = promisify(execFile);
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const audit = async (url: string, ...args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        `${root}node_modules/.bin/tsx`,
        ['scripts/audit.ts', ...args],
        {
          cwd: root,
          env: { ...process.env, DATABASE_URL: url },
        },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('prints the report; a bad --since or command is exit 2 in one line', async () => {
    const test = await openTestDb('sqlite');
    try {
      const entry = { ...auditEntry(newId('pat')), apiVersion: '2026-11-01' };
      await test.db.transaction((tx) => recordAudit(tx, entry));
      const ok = await audit(test.url, 'versions', '--since', '30');
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain('in the last 30 day(s)');
      expect(ok.stdout).toMatch(new RegExp(`${entry.keyId} +2026-11-01 +1 `));
      for (const args of [
        ['versions', '--since', 'soon'],
        ['versions', '--patient', 'pat_x'],
        ['version'],
        ['--since', '3'],
      ]) {
        const bad = await audit(test.url, ...args);
        expect(bad.code, args.join(' ')).toBe(2);
        expect(bad.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      }
    } finally {
      await test.dispose();
    }
  });
});
