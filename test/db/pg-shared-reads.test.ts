/**
 * Identical plain reads on the PostgreSQL pool asked in one event loop turn are sent once and
 * answer every caller with its own rows; reads with effects are never shared; a read asked
 * after a committed write sees it. Transactions share their plain reads until they begin,
 * on a pool of their own, and read their own writes once they have begun.
 */
import { expect, it } from 'vitest';
import { PgSharedReads } from '../../server/db/pg-shared-reads.js';
import { openPostgres, type PostgresDb } from '../../server/db/postgres.js';
import { openTestDb, postgresAvailable } from '../support/databases.js';

it('tells plain SELECTs from reads with effects', () => {
  expect(PgSharedReads.shareable('SELECT id FROM t WHERE n = $1')).toBe(true);
  expect(PgSharedReads.shareable('  select 1')).toBe(true);
  expect(PgSharedReads.shareable('SELECT id FROM t WHERE id = $1 FOR UPDATE')).toBe(false);
  expect(PgSharedReads.shareable('SELECT id FROM t FOR KEY SHARE')).toBe(false);
  expect(PgSharedReads.shareable('SELECT pg_try_advisory_lock(1)')).toBe(false);
  expect(PgSharedReads.shareable("SELECT nextval('s')")).toBe(false);
  expect(PgSharedReads.shareable('INSERT INTO t VALUES (1) RETURNING id')).toBe(false);
  expect(PgSharedReads.shareable('WITH x AS (DELETE FROM t RETURNING id) SELECT * FROM x')).toBe(
    false,
  );
});

it('sends identical reads of one turn once, each caller with its own rows', async (ctx) => {
  if (!(await postgresAvailable())) return ctx.skip();
  const test = await openTestDb('postgres', { migrate: false });
  const db = test.db as PostgresDb;
  try {
    await db.run('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    await db.run("INSERT INTO t VALUES ('r1', 1), ('r2', 2), ('r3', 3)");
    const sql = 'SELECT id, n FROM t WHERE n >= $1 ORDER BY id';
    const before = { ...db.readStats };
    const [a, b, c] = await Promise.all([db.all(sql, [2]), db.all(sql, [2]), db.all(sql, [3])]);
    expect(a).toEqual([
      { id: 'r2', n: 2 },
      { id: 'r3', n: 3 },
    ]);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    expect(b[0]).not.toBe(a[0]);
    expect(c).toEqual([{ id: 'r3', n: 3 }]);
    expect(db.readStats.statements - before.statements).toBe(2);
    expect(db.readStats.coalesced - before.coalesced).toBe(1);

    // A write acknowledged before a read is asked is in that read, shared or not.
    await db.run("INSERT INTO t VALUES ('r4', 4)");
    const [d, e] = await Promise.all([db.all(sql, [3]), db.all(sql, [3])]);
    expect(d.map((row) => row.id)).toEqual(['r3', 'r4']);
    expect(e).toEqual(d);
  } finally {
    await test.dispose();
  }
});

/** Table `t` with one row, `r1` = 1. */
async function oneRowTable(db: PostgresDb): Promise<void> {
  await db.run('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  await db.run("INSERT INTO t VALUES ('r1', 1)");
}

/** Twelve transactions at once, each a plain read before BEGIN, a write, a read of it. */
function twelveTransactions(db: PostgresDb) {
  return Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      db.transaction(async (tx) => {
        const rows = await tx.all<{ n: number }>('SELECT n FROM t WHERE id = $1', ['r1']);
        await tx.run('INSERT INTO t VALUES ($1, $2)', [`w${i}`, i]);
        // Begun: its own uncommitted row is visible to it, so this read is its own.
        const own = await tx.all<{ id: string }>('SELECT id FROM t WHERE id = $1', [`w${i}`]);
        return { first: rows[0]?.n, own: own.length };
      }),
    ),
  );
}

it('shares the reads transactions make before BEGIN, and only those', async (ctx) => {
  if (!(await postgresAvailable())) return ctx.skip();
  const test = await openTestDb('postgres', { migrate: false });
  const db = openPostgres(test.url, 12);
  try {
    await oneRowTable(db);
    // Twelve open connections, so the twelve transactions start in one turn.
    await Promise.all(Array.from({ length: 12 }, () => db.run('SELECT pg_sleep(0.05)')));
    const before = { ...db.transactionReadStats };
    expect(await twelveTransactions(db)).toEqual(
      Array.from({ length: 12 }, () => ({ first: 1, own: 1 })),
    );
    const statements = db.transactionReadStats.statements - before.statements;
    const coalesced = db.transactionReadStats.coalesced - before.coalesced;
    // The twelve first reads went as one or two statements; the reads after BEGIN (each of
    // its own row) were never shared, so they are not counted here.
    expect(statements).toBeLessThanOrEqual(2);
    expect(statements + coalesced).toBe(12);
    expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: 13 });
  } finally {
    await db.close();
    await test.dispose();
  }
});

it('never waits for a connection its transactions hold to share a read', async (ctx) => {
  if (!(await postgresAvailable())) return ctx.skip();
  const test = await openTestDb('postgres', { migrate: false });
  // Two connections for twelve transactions: each holds one while it waits for a shared
  // read, so that read must not need a third from the same pool (it would wait forever).
  const db = openPostgres(test.url, 2);
  try {
    await oneRowTable(db);
    const before = { ...db.transactionReadStats };
    expect(await twelveTransactions(db)).toEqual(
      Array.from({ length: 12 }, () => ({ first: 1, own: 1 })),
    );
    const stats = db.transactionReadStats;
    expect(stats.statements - before.statements + (stats.coalesced - before.coalesced)).toBe(12);
  } finally {
    await db.close();
    await test.dispose();
  }
});
