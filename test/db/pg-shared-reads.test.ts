/**
 * Identical plain reads on the PostgreSQL pool asked in one event loop turn are sent once and
 * answer every caller with its own rows; reads with effects are never shared; a read asked
 * after a committed write sees it. Transactions share their plain reads until they begin,
 * on a pool of their own, and read their own writes once they have begun.
 */
import { expect, it, type TestContext } from 'vitest';
import { MAX_COMBINED, PgSharedReads } from '../../server/db/pg-shared-reads.js';
import { openPostgres, type PostgresDb } from '../../server/db/postgres.js';
import { beginIdempotent } from '../../server/repos/idempotency.js';
import { openTestDb, postgresAvailable, type TestDb } from '../support/databases.js';

/** Runs `fn` on a fresh schema of the test PostgreSQL (the test skips without one), then drops it. */
async function onFreshPostgres(
  ctx: TestContext,
  options: { migrate?: boolean },
  fn: (test: TestDb) => Promise<void>,
): Promise<void> {
  if (!(await postgresAvailable())) return ctx.skip();
  const test = await openTestDb('postgres', options);
  try {
    await fn(test);
  } finally {
    await test.dispose();
  }
}

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
  await onFreshPostgres(ctx, { migrate: false }, async (test) => {
    const db = test.db as PostgresDb;
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
    // The two distinct reads went as one statement.
    expect(db.readStats.statements - before.statements).toBe(1);
    expect(db.readStats.reads - before.reads).toBe(2);
    expect(db.readStats.coalesced - before.coalesced).toBe(1);

    // A write acknowledged before a read is asked is in that read, shared or not.
    await db.run("INSERT INTO t VALUES ('r4', 4)");
    const [d, e] = await Promise.all([db.all(sql, [3]), db.all(sql, [3])]);
    expect(d.map((row) => row.id)).toEqual(['r3', 'r4']);
    expect(e).toEqual(d);
  });
});

it('combines distinct reads of one SQL text: each caller its own rows, in its own order', async (ctx) => {
  await onFreshPostgres(ctx, { migrate: false }, async (test) => {
    const db = test.db as PostgresDb;
    await db.run('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, doc TEXT)');
    await db.run(
      "INSERT INTO t SELECT 'r' || lpad(i::text, 3, '0'), i, 'd' || i FROM generate_series(1, 200) i",
    );
    const sql = 'SELECT id, n, doc FROM t WHERE n <= $1 AND n >= $2 ORDER BY id DESC LIMIT 5';
    // 40 distinct reads (more than one statement holds), two asked twice, some empty.
    const bounds = Array.from({ length: 40 }, (_, i) => [200 - i * 5, i % 7 === 0 ? 999 : 1]);
    const asked = [...bounds, bounds[3] as number[], bounds[10] as number[]];
    const before = { ...db.readStats };
    const answers = await Promise.all(asked.map((b) => db.all(sql, b)));
    for (const [i, rows] of answers.entries()) {
      const [upper, lower] = asked[i] as [number, number];
      const expected = Array.from({ length: 200 }, (_, k) => k + 1)
        .filter((n) => n <= upper && n >= lower)
        .map((n) => ({ id: `r${String(n).padStart(3, '0')}`, n, doc: `d${n}` }))
        .sort((x, y) => (x.id < y.id ? 1 : -1))
        .slice(0, 5);
      expect(rows).toEqual(expected);
    }
    expect(answers[40]).not.toBe(answers[3]);
    expect(db.readStats.reads - before.reads).toBe(40);
    expect(db.readStats.statements - before.statements).toBe(Math.ceil(40 / MAX_COMBINED));
    expect(db.readStats.coalesced - before.coalesced).toBe(2);

    // One read's bad value fails that read alone: the others are answered.
    const mixed = await Promise.allSettled([
      db.all('SELECT id FROM t WHERE n = $1', [7]),
      db.all('SELECT id FROM t WHERE n = $1', ['not a number']),
      db.all('SELECT id FROM t WHERE n = $1', [9]),
    ]);
    expect(mixed.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((mixed[0] as PromiseFulfilledResult<unknown>).value).toEqual([{ id: 'r007' }]);
    expect((mixed[2] as PromiseFulfilledResult<unknown>).value).toEqual([{ id: 'r009' }]);
  });
});

it('moves the placeholders of each branch up by the statements before it', () => {
  expect(PgSharedReads.combinedText('SELECT a FROM t WHERE b = $1 AND c > $2', 2, 2)).toBe(
    'WITH pc_batch_0 AS (SELECT a FROM t WHERE b = $1 AND c > $2), ' +
      'pc_batch_1 AS (SELECT a FROM t WHERE b = $3 AND c > $4) ' +
      'SELECT 0 AS pc_batch_read, row_number() OVER () AS pc_batch_order, pc_batch_0.* FROM pc_batch_0' +
      ' UNION ALL ' +
      'SELECT 1 AS pc_batch_read, row_number() OVER () AS pc_batch_order, pc_batch_1.* FROM pc_batch_1' +
      ' ORDER BY pc_batch_read, pc_batch_order',
  );
});

it('combines only writes that skip conflicts and return what they inserted', () => {
  const claim =
    'INSERT INTO k (id) VALUES ($1)\n ON CONFLICT (id) DO NOTHING RETURNING 1 AS claimed';
  expect(PgSharedReads.combinableWrite(claim)).toBe(true);
  expect(PgSharedReads.combinableWrite(claim.replace(' RETURNING 1 AS claimed', ''))).toBe(false);
  expect(
    PgSharedReads.combinableWrite(
      'INSERT INTO k (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET n = k.n + 1 RETURNING n',
    ),
  ).toBe(false);
  expect(PgSharedReads.combinableWrite('UPDATE k SET n = 1 RETURNING n')).toBe(false);
  expect(PgSharedReads.combinableWrite(`${claim}; DELETE FROM k RETURNING id`)).toBe(false);
});

it('sends the idempotency claims of one turn together, each caller its own outcome', async (ctx) => {
  await onFreshPostgres(ctx, {}, async (test) => {
    const db = test.db as PostgresDb;
    const claim = (key: string) =>
      beginIdempotent(db, {
        namespace: 'account',
        livemode: false,
        idempotencyKey: key,
        requestHash: 'h',
        nowMs: 1_800_000_000_000,
      });
    const before = { ...db.claimStats };
    // 20 keys, three of them asked twice in the same turn.
    const keys = [...Array.from({ length: 20 }, (_, i) => `k${i}`), 'k3', 'k7', 'k19'];
    const outcomes = await Promise.all(keys.map(claim));
    const started = keys.filter((_, i) => outcomes[i]?.state === 'started');
    expect(new Set(started).size).toBe(20);
    expect(started).toHaveLength(20);
    expect(outcomes.filter((o) => o.state === 'in_use')).toHaveLength(3);
    expect(db.claimStats.reads - before.reads).toBe(23);
    expect(db.claimStats.statements - before.statements).toBe(Math.ceil(23 / MAX_COMBINED));
    const rows = await db.all('SELECT idempotency_key FROM idempotency_keys ORDER BY 1');
    expect(rows).toHaveLength(20);
  });
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
  await onFreshPostgres(ctx, { migrate: false }, async (test) => {
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
    }
  });
});

it('never waits for a connection its transactions hold to share a read', async (ctx) => {
  await onFreshPostgres(ctx, { migrate: false }, async (test) => {
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
    }
  });
});
