import { setImmediate as tick } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { DbError } from '../../server/db/errors.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

async function scratch(db: Db): Promise<void> {
  await db.run(
    'CREATE TABLE IF NOT EXISTS scratch (id TEXT PRIMARY KEY, n INTEGER NOT NULL, note TEXT)',
  );
}

await describeEachDatabase('Db adapter conformance', (dialect) => {
  const ctx = useTestDb(dialect);

  it('binds $n placeholders in any order, repeated, with booleans and nulls', async () => {
    await scratch(ctx.db);
    await ctx.db.run('INSERT INTO scratch (id, n, note) VALUES ($2, $1, $3)', [true, 'a', null]);
    const row = await ctx.db.get<{ id: string; n: number; note: null; same: number }>(
      'SELECT id, n, note, CASE WHEN $1 = $1 THEN 1 ELSE 0 END AS same FROM scratch WHERE id = $1',
      ['a'],
    );
    expect(row).toEqual({ id: 'a', n: 1, note: null, same: 1 });
  });

  it('leaves placeholders inside string literals alone', async () => {
    const row = await ctx.db.get<{ a: string; b: string }>("SELECT '$1 costs' AS a, $1 AS b", [
      'x',
    ]);
    expect(row).toEqual({ a: '$1 costs', b: 'x' });
  });

  it('returns numbers for BIGINT and COUNT, undefined for no row, changes for writes', async () => {
    await scratch(ctx.db);
    const inserted = await ctx.db.run("INSERT INTO scratch (id, n) VALUES ('a', 1), ('b', 2)");
    expect(inserted.changes).toBe(2);
    expect(await ctx.db.get('SELECT COUNT(*) AS c FROM scratch')).toEqual({ c: 2 });
    expect(await ctx.db.get('SELECT n FROM scratch WHERE id = $1', ['zz'])).toBeUndefined();
    const big = await ctx.db.get<{ v: number }>(
      'SELECT CAST($1 AS BIGINT) AS v',
      [1_800_000_000_000],
    );
    expect(big?.v).toBe(1_800_000_000_000);
    expect((await ctx.db.run('UPDATE scratch SET n = n + 1')).changes).toBe(2);
  });

  it('supports INSERT … RETURNING through get outside a transaction', async () => {
    await scratch(ctx.db);
    const row = await ctx.db.get("INSERT INTO scratch (id, n) VALUES ('r', 7) RETURNING n");
    expect(row).toEqual({ n: 7 });
  });

  it('commits a transaction and rolls back one that throws', async () => {
    await scratch(ctx.db);
    await ctx.db.transaction(async (tx) => {
      await tx.run("INSERT INTO scratch (id, n) VALUES ('kept', 1)");
    });
    await expect(
      ctx.db.transaction(async (tx) => {
        await tx.run("INSERT INTO scratch (id, n) VALUES ('lost', 1)");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const ids = await ctx.db.all<{ id: string }>('SELECT id FROM scratch ORDER BY id');
    expect(ids.map((r) => r.id)).toEqual(['kept']);
  });

  it('nests with savepoints: an inner failure keeps the outer work', async () => {
    await scratch(ctx.db);
    await ctx.db.transaction(async (tx) => {
      await tx.run("INSERT INTO scratch (id, n) VALUES ('outer', 1)");
      await expect(
        tx.transaction(async (inner) => {
          await inner.run("INSERT INTO scratch (id, n) VALUES ('inner', 1)");
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    const ids = await ctx.db.all<{ id: string }>('SELECT id FROM scratch');
    expect(ids.map((r) => r.id)).toEqual(['outer']);
  });

  it('keeps interleaved read-modify-write transactions apart', async () => {
    await scratch(ctx.db);
    await ctx.db.run("INSERT INTO scratch (id, n) VALUES ('counter', 0)");
    const lock = dialect === 'postgres' ? ' FOR UPDATE' : '';
    await Promise.all(
      Array.from({ length: 20 }, () =>
        ctx.db.transaction(async (tx) => {
          const row = await tx.get<{ n: number }>(
            `SELECT n FROM scratch WHERE id = 'counter'${lock}`,
          );
          await tick(); // let other requests run between the read and the write
          await tx.run("UPDATE scratch SET n = $1 WHERE id = 'counter'", [row!.n + 1]);
        }),
      ),
    );
    expect(await ctx.db.get("SELECT n FROM scratch WHERE id = 'counter'")).toEqual({ n: 20 });
  });

  it('does not show uncommitted rows to reads outside the transaction', async () => {
    await scratch(ctx.db);
    let seen: unknown = 'not read';
    await ctx.db.transaction(async (tx) => {
      await tx.run("INSERT INTO scratch (id, n) VALUES ('pending', 1)");
      seen = await ctx.db.get("SELECT id FROM scratch WHERE id = 'pending'");
    });
    expect(seen).toBeUndefined();
    expect(await ctx.db.get("SELECT id FROM scratch WHERE id = 'pending'")).toEqual({
      id: 'pending',
    });
  });

  it('refuses a transaction handle used after its transaction ended', async () => {
    let leaked: Db | undefined;
    await ctx.db.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.get('SELECT 1 AS one')).rejects.toThrow(/after the transaction ended/);
  });

  it('reports a unique violation as DbError without the offending value', async () => {
    await scratch(ctx.db);
    await ctx.db.run("INSERT INTO scratch (id, n) VALUES ('MRN-SECRET-4711', 1)");
    const err = await ctx.db
      .run("INSERT INTO scratch (id, n) VALUES ('MRN-SECRET-4711', 2)")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DbError);
    expect((err as DbError).code).toBe('unique_violation');
    expect(JSON.stringify({ ...(err as object), message: (err as Error).message })).not.toContain(
      'MRN-SECRET-4711',
    );
  });

  it('enforces foreign keys', async () => {
    const err = await ctx.db
      .run(
        `INSERT INTO appointments (id, livemode, created, updated, patient_id, status, data)
          VALUES ('appt_x', 0, 1, 1, 'pat_missing', 'proposed', '{}')`,
      )
      .catch((e: unknown) => e);
    expect((err as DbError).code).toBe('foreign_key_violation');
  });

  it('keeps the audit tables append-only', async () => {
    await ctx.db.run(
      `INSERT INTO audit_log (id, at, operation_id, outcome, object_ids) VALUES ($1, 1, 'op', 'success', '[]')`,
      [newId('aud')],
    );
    await expect(ctx.db.run("UPDATE audit_log SET outcome = 'denied'")).rejects.toThrow(
      /append-only/,
    );
    await expect(ctx.db.run('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
  });
});
