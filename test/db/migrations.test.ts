import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { migrate } from '../../server/db/migrate.js';
import { migrations } from '../../server/db/migrations/index.js';
import { openDb } from '../../server/db/open.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/migrate-child.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

async function runChild(url: string): Promise<string> {
  const { stdout } = await run(tsx, [child, url]);
  return stdout.trim().split('\n').at(-1)!;
}

const latest = migrations.map((m) => m.version);

await describeEachDatabase('migrations', (dialect) => {
  const ctx = useTestDb(dialect, { migrate: false });

  it('applies every migration once and is a no-op the second time', async () => {
    expect(await migrate(ctx.db)).toEqual(latest);
    expect(await migrate(ctx.db)).toEqual([]);
    const rows = await ctx.db.all<{ version: number }>('SELECT version FROM schema_migrations');
    expect(rows.map((r) => r.version)).toEqual(latest);
  });

  it('is safe when several processes migrate one fresh database at once', async () => {
    const children = Array.from({ length: 3 }, () => runChild(ctx.url));
    const applied = (await Promise.all(children)).map((out) => JSON.parse(out) as number[]);
    expect(applied.filter((versions) => versions.length > 0)).toEqual([latest]);
    const rows = await ctx.db.all('SELECT version FROM schema_migrations');
    expect(rows).toHaveLength(latest.length);
  });

  it('openDb migrates on open', async () => {
    const db = await openDb(ctx.url);
    try {
      expect(await db.get('SELECT COUNT(*) AS n FROM patients')).toEqual({ n: 0 });
    } finally {
      await db.close();
    }
  });

  it('0003 moves idempotency records from per key to per namespace, both dialects alike', async () => {
    await migrate(ctx.db, migrations.slice(0, 2));
    const key = (id: string, kind: string, patient: string | null) =>
      ctx.db.run(
        `INSERT INTO api_keys (id, secret_hash, kind, livemode, scopes, allowed_ips,
          allowed_origins, patient_id, hint, created) VALUES ($1, $2, $3, 0, '[]', '[]', '[]', $4, 'x', 0)`,
        [id, `hash-${id}`, kind, patient],
      );
    await key('key_sk1', 'secret', null);
    await key('key_rk1', 'restricted', null);
    await key('key_pk1', 'publishable', null);
    await key('key_ek1', 'ephemeral', 'pat_A');
    const record = (keyId: string, idem: string, state: string, created: number) =>
      ctx.db.run(
        `INSERT INTO idempotency_keys (key_id, livemode, idempotency_key, request_hash, state,
          status, body, created_at, locked_at) VALUES ($1, 0, $2, $3, $4, $5, $6, $7, $7)`,
        [keyId, idem, `h-${keyId}`, state, state === 'completed' ? 200 : null, null, created],
      );
    // Two server keys used k-1: the completed one wins over the running (older) claim.
    await record('key_sk1', 'k-1', 'running', 1);
    await record('key_rk1', 'k-1', 'completed', 2);
    // Both completed: the older wins.
    await record('key_sk1', 'k-2', 'completed', 5);
    await record('key_rk1', 'k-2', 'completed', 4);
    await record('key_pk1', 'k-1', 'completed', 3);
    await record('key_ek1', 'k-1', 'completed', 3);
    expect(await migrate(ctx.db, migrations.slice(0, 3))).toEqual([3]);
    const rows = await ctx.db.all<{
      namespace: string;
      idempotency_key: string;
      request_hash: string;
    }>(
      `SELECT namespace, idempotency_key, request_hash FROM idempotency_keys
        ORDER BY namespace, idempotency_key`,
    );
    expect(rows).toEqual([
      { namespace: 'account', idempotency_key: 'k-1', request_hash: 'h-key_rk1' },
      { namespace: 'account', idempotency_key: 'k-2', request_hash: 'h-key_rk1' },
      { namespace: 'patient:pat_A', idempotency_key: 'k-1', request_hash: 'h-key_ek1' },
      { namespace: 'publishable:key_pk1', idempotency_key: 'k-1', request_hash: 'h-key_pk1' },
    ]);
  });

  it('0008 drops the claims schedule and keeps every claim', async () => {
    await migrate(ctx.db, migrations.slice(0, 7));
    await ctx.db.run(
      `INSERT INTO patients (id, livemode, created, updated, active, data)
        VALUES ('pat_A', 0, 1, 1, 1, '{}')`,
    );
    await ctx.db.run(
      `INSERT INTO claims (id, livemode, created, updated, patient_id, status, next_action_at, data)
        VALUES ('clm_A', 0, 1, 2, 'pat_A', 'submitted', 5000, '{"id":"clm_A"}')`,
    );
    expect(await migrate(ctx.db, migrations.slice(0, 8))).toEqual([8]);
    const columns =
      ctx.db.dialect === 'postgres'
        ? await ctx.db.all<{ name: string }>(
            `SELECT column_name AS name FROM information_schema.columns
              WHERE table_schema = current_schema() AND table_name = 'claims'`,
          )
        : await ctx.db.all<{ name: string }>("SELECT name FROM pragma_table_info('claims')");
    expect(columns.map((c) => c.name)).not.toContain('next_action_at');
    expect(columns.map((c) => c.name)).toContain('status');
    const rows = await ctx.db.all('SELECT id, updated, status, data FROM claims');
    expect(rows.map((r) => ({ ...r, updated: Number(r.updated) }))).toEqual([
      { id: 'clm_A', updated: 2, status: 'submitted', data: '{"id":"clm_A"}' },
    ]);
  });

  it('0009 adds the actor: older keys need none, older audit rows have none and stay append-only', async () => {
    await migrate(ctx.db, migrations.slice(0, 8));
    await ctx.db.run(
      `INSERT INTO api_keys (id, secret_hash, kind, livemode, scopes, allowed_ips, allowed_origins,
        hint, created) VALUES ('key_A', 'h', 'secret', 0, '[]', '[]', '[]', 'sk_test_…a', 1)`,
    );
    await ctx.db.run(
      `INSERT INTO audit_log (id, at, key_id, operation_id, outcome, object_ids)
        VALUES ('aud_A', 1, 'key_A', 'retrievePatient', 'success', '[]')`,
    );
    expect(await migrate(ctx.db, migrations.slice(0, 9))).toEqual([9]);
    const key = await ctx.db.get('SELECT require_actor, actor FROM api_keys');
    expect({ ...key, require_actor: Number(key?.require_actor) }).toEqual({
      require_actor: 0,
      actor: null,
    });
    expect(await ctx.db.get('SELECT actor FROM audit_log')).toEqual({ actor: null });
    await expect(ctx.db.run(`UPDATE audit_log SET actor = 'x'`)).rejects.toThrow(/append-only/);
  });
});
