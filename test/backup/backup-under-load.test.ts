/**
 * `patient-care backup` taken while the service acknowledges writes (100+ creates/s), then
 * `patient-care restore` into a fresh database, on SQLite and on PostgreSQL: every create
 * acknowledged before the backup began is in the restored database, the restore's checks
 * (doctor, migrations, the audit tables' append-only triggers) pass, and the audit trail
 * holds at least the entries it held before the backup. The commands run as an operator runs
 * them: server/cli/entry.mjs in a process of its own (under tsx: no build needed).
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { withSchema } from '../../server/backup/postgres.js';
import { unprotectedAuditTables } from '../../server/backup/verify.js';
import { connect } from '../../server/db/open.js';
import type { Dialect } from '../../server/db/types.js';
import { REPO_ROOT, startService } from '../durability/support/service-process.js';
import { openTestDb, POSTGRES_URL, postgresAvailable } from '../support/databases.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'pc-backup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pgReachable = await postgresAvailable();
const pgDumpMissing = spawnSync('pg_dump', ['--version']).error !== undefined;
if (pgReachable && pgDumpMissing) {
  console.warn('NOTICE: pg_dump is not installed; skipping the PostgreSQL backup test.');
}

/** Creates in flight at once: enough for well over 100 acknowledged creates a second. */
const CONCURRENCY = 16;
/** Load before the backup starts, and at least this many creates acknowledged by then. */
const WARM_UP_MS = 1500;

/** Runs `patient-care ARGS` against `databaseUrl`; the exit code and what it printed. */
async function patientCare(args: string[], databaseUrl: string) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'server/cli/entry.mjs', ...args],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 120_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Creates patients until `stop()`, recording each acknowledged id with when it was acknowledged. */
function writeLoad(baseUrl: string, key: string) {
  const acked: { id: string; at: number }[] = [];
  const failures: number[] = [];
  let running = true;
  const started = performance.now();
  const lane = async () => {
    while (running) {
      const res = await fetch(`${baseUrl}/v1/patients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: { family: 'Backup', given: ['Load'] } }),
      });
      if (res.status !== 200) {
        failures.push(res.status);
        await res.arrayBuffer();
        continue;
      }
      const { id } = (await res.json()) as { id: string };
      acked.push({ id, at: performance.now() });
    }
  };
  const lanes = Array.from({ length: CONCURRENCY }, lane);
  return {
    acked,
    failures,
    async stop() {
      running = false;
      await Promise.all(lanes);
      return (acked.length / (performance.now() - started)) * 1000;
    },
  };
}

/** A fresh database to restore into; dropped with `drop()`. */
async function freshTarget(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite')
    return { url: `sqlite:${join(dir, 'restored.db')}`, drop: async () => {} };
  const name = `pc_restore_${randomBytes(6).toString('hex')}`;
  const admin = connect(POSTGRES_URL);
  await admin.run(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

describe.each([
  { dialect: 'sqlite' as const, skip: false },
  { dialect: 'postgres' as const, skip: !pgReachable || pgDumpMissing },
])('backup under write load, restored into a fresh database: $dialect', ({ dialect, skip }) => {
  it.skipIf(skip)('keeps every acknowledged write, the doctor and the audit trail', async () => {
    const source =
      dialect === 'sqlite'
        ? { url: `sqlite:${join(dir, 'live.db')}`, dispose: async () => {} }
        : await openTestDb('postgres');
    const target = await freshTarget(dialect);
    const service = await startService({ databaseUrl: source.url });
    try {
      const key = service.printedKey;
      expect(key, service.output()).not.toBeNull();
      const load = writeLoad(service.baseUrl, key ?? '');
      await new Promise((wait) => setTimeout(wait, WARM_UP_MS));

      // Everything acknowledged from here on is before the backup began.
      const backupStarted = performance.now();
      const before = new Set(load.acked.map((write) => write.id));
      const reader = connect(source.url);
      const auditBefore = Number(
        (await reader.get<{ n: number | string }>('SELECT count(*) AS n FROM audit_log'))?.n,
      );
      await reader.close();
      const file = join(dir, `${dialect}.backup`);
      const backup = await patientCare(['backup', '--to', file], source.url);
      const backupEnded = performance.now();
      const during = load.acked.filter(
        (write) => write.at > backupStarted && write.at < backupEnded,
      ).length;
      const rate = await load.stop();
      console.log(
        `${dialect}: ${before.size} creates acknowledged before the backup, ${during} during it (${Math.round(backupEnded - backupStarted)} ms), ${Math.round(rate)} creates/s overall; ${backup.stdout.trim()}`,
      );
      expect(backup.code, backup.stderr).toBe(0);
      expect(load.failures).toEqual([]);
      expect(before.size).toBeGreaterThan(0);
      // Writes went on while the backup ran. The rate is printed, not asserted: on a quiet
      // machine it is several hundred a second, on a shared one it follows the load.
      expect(during).toBeGreaterThan(0);

      const restore = await patientCare(
        ['restore', '--from', file, '--to', target.url],
        source.url,
      );
      expect(restore.code, restore.stdout + restore.stderr).toBe(0);
      expect(restore.stdout).toContain('doctor: nothing to repair');
      // A second restore over it is refused without --force.
      const again = await patientCare(['restore', '--from', file, '--to', target.url], source.url);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/--force/);

      const schema =
        dialect === 'postgres'
          ? /search_path=(\w+)/.exec(decodeURIComponent(source.url))?.[1]
          : undefined;
      const restored = connect(schema === undefined ? target.url : withSchema(target.url, schema));
      try {
        const ids = new Set(
          (await restored.all<{ id: string }>('SELECT id FROM patients')).map((row) => row.id),
        );
        expect([...before].filter((id) => !ids.has(id))).toEqual([]);
        const audit = await restored.get<{ n: number | string }>(
          'SELECT count(*) AS n FROM audit_log',
        );
        expect(Number(audit?.n)).toBeGreaterThanOrEqual(auditBefore);
        expect(await unprotectedAuditTables(restored)).toEqual([]);
        await expect(restored.run('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
      } finally {
        await restored.close();
      }
    } finally {
      await service.stop();
      await target.drop();
      await source.dispose();
    }
  });
});
