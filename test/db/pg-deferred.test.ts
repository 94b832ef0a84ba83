/**
 * Held writes on PostgreSQL (`runDeferred`, `PostgresTx`): they commit with the transaction
 * or not at all, a read that could see them sends them first, an expected row count that is
 * not met rolls the whole transaction back, with or without `BEGIN` sent (one expected count
 * is checked inside the held statement, so such a transaction sends no `BEGIN`), and
 * statements run at once share one `BEGIN`.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runDeferred } from '../../server/db/deferred.js';
import { MAX_COMBINED } from '../../server/db/pg-shared-reads.js';
import type { PostgresDb } from '../../server/db/postgres.js';
import type { Db } from '../../server/db/types.js';
import { openTestDb, postgresAvailable, type TestDb } from '../support/databases.js';

let test: TestDb | undefined;
let db: Db;

beforeAll(async () => {
  if (!(await postgresAvailable())) return;
  test = await openTestDb('postgres', { migrate: false });
  db = test.db;
  await db.run('CREATE TABLE a (id TEXT PRIMARY KEY)');
  await db.run('CREATE TABLE b (id TEXT PRIMARY KEY, a_id TEXT NOT NULL REFERENCES a (id))');
});
afterAll(async () => test?.dispose());

const ids = async (table: string) =>
  (await db.all<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => r.id);

it('commits held writes together, foreign keys between them included', async (ctx) => {
  if (test === undefined) return ctx.skip();
  await db.transaction(async (tx) => {
    await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a1'], {
      changes: 1,
      otherwise: () => new Error('not one row'),
    });
    await runDeferred(tx, 'INSERT INTO b (id, a_id) VALUES ($1, $2)', ['b1', 'a1']);
    // A plain read of a table no held write touches does not send them.
    expect(await tx.all('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
  expect(await ids('a')).toContain('a1');
  expect(await ids('b')).toContain('b1');
});

it('sends held writes before a read that could see them', async (ctx) => {
  if (test === undefined) return ctx.skip();
  await db.transaction(async (tx) => {
    await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a2']);
    expect((await tx.all('SELECT id FROM a WHERE id = $1', ['a2'])).length).toBe(1);
  });
});

it('rolls everything back when an expected count is not met, with or without BEGIN sent', async (ctx) => {
  if (test === undefined) return ctx.skip();
  // An INSERT changes one row, not none.
  const refuse = { changes: 0, otherwise: () => new Error('refused') };
  const one = { changes: 1, otherwise: () => new Error('not one row') };
  await expect(
    db.transaction(async (tx) => {
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a3']);
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a4'], refuse);
    }),
  ).rejects.toThrow('refused');
  await expect(
    db.transaction(async (tx) => {
      await tx.run('INSERT INTO a (id) VALUES ($1)', ['a5']);
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a6'], refuse);
    }),
  ).rejects.toThrow('refused');
  // Two expected counts in one batch: checked after the statement, inside BEGIN.
  await expect(
    db.transaction(async (tx) => {
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a9'], one);
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a10'], refuse);
    }),
  ).rejects.toThrow('refused');
  for (const id of ['a3', 'a4', 'a5', 'a6', 'a9', 'a10']) expect(await ids('a')).not.toContain(id);
});

it('checks one expected count inside the held statement: no BEGIN, one round trip', async (ctx) => {
  if (test === undefined) return ctx.skip();
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: Parameters<typeof original>
  ) {
    const [config] = args as unknown as [string | { text: string }];
    sent.push(typeof config === 'string' ? config : config.text);
    return (original as (...a: unknown[]) => unknown).apply(this, args) as ReturnType<
      typeof original
    >;
  });
  try {
    const one = { changes: 1, otherwise: () => new Error('not one row') };
    await db.transaction(async (tx) => {
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a11']);
      await runDeferred(tx, 'INSERT INTO b (id, a_id) VALUES ($1, $2)', ['b11', 'a11'], one);
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^WITH d0 AS/);
    sent.length = 0;
    // The same write whose second row already exists changes none (ON CONFLICT DO NOTHING):
    // the statement fails whole, and its first row is not committed either.
    await expect(
      db.transaction(async (tx) => {
        await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a12']);
        await runDeferred(
          tx,
          'INSERT INTO b (id, a_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
          ['b11', 'a12'],
          one,
        );
      }),
    ).rejects.toThrow('not one row');
    expect(sent.filter((text) => /^\s*(BEGIN|COMMIT)/i.test(text))).toEqual([]);
  } finally {
    spy.mockRestore();
  }
  expect(await ids('a')).toContain('a11');
  expect(await ids('a')).not.toContain('a12');
});

it('runs statements a caller starts at once in one transaction', async (ctx) => {
  if (test === undefined) return ctx.skip();
  await expect(
    db.transaction(async (tx) => {
      await Promise.all([
        tx.run('INSERT INTO a (id) VALUES ($1)', ['a7']),
        tx.run('INSERT INTO a (id) VALUES ($1)', ['a8']),
      ]);
      throw new Error('undo');
    }),
  ).rejects.toThrow('undo');
  expect(await ids('a')).not.toContain('a7');
  expect(await ids('a')).not.toContain('a8');
});

it('commits the one-statement transactions of a turn together, each refusal its own', async (ctx) => {
  if (test === undefined) return ctx.skip();
  const pgDb = db as PostgresDb;
  const one = { changes: 1, otherwise: () => new Error('not one row') };
  // Each transaction: a parent row, then a child row whose one inserted row is checked.
  const create = (n: number, opts: { parent?: string; child?: string } = {}) =>
    db.transaction(async (tx) => {
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', [opts.parent ?? `p${n}`]);
      await runDeferred(
        tx,
        'INSERT INTO b (id, a_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
        [opts.child ?? `c${n}`, opts.parent ?? `p${n}`],
        one,
      );
      return n;
    });

  // Warm connections, so the transactions below all reach their commit in one turn.
  await Promise.all(
    Array.from({ length: MAX_COMBINED }, () => db.transaction((tx) => tx.run('SELECT 1'))),
  );
  let before = { ...pgDb.commitStats };
  const all = await Promise.all(Array.from({ length: MAX_COMBINED }, (_, n) => create(n)));
  expect(all).toEqual(Array.from({ length: MAX_COMBINED }, (_, n) => n));
  expect(pgDb.commitStats.reads - before.reads).toBe(MAX_COMBINED);
  expect(pgDb.commitStats.statements - before.statements).toBe(1);
  for (let n = 0; n < MAX_COMBINED; n++) {
    expect(await ids('a')).toContain(`p${n}`);
    expect(await ids('b')).toContain(`c${n}`);
  }

  // Only transactions of one shape share a statement (so its text is one of a bounded set,
  // a prepared statement like any other): four of each of two shapes, two statements.
  const parentOnly = (n: number) =>
    db.transaction(async (tx) => {
      await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', [`q${n}`], one);
    });
  before = { ...pgDb.commitStats };
  await Promise.all(
    Array.from({ length: MAX_COMBINED }, (_, n) => (n % 2 === 0 ? create(50 + n) : parentOnly(n))),
  );
  expect(pgDb.commitStats.reads - before.reads).toBe(MAX_COMBINED);
  expect(pgDb.commitStats.statements - before.statements).toBe(2);

  // Among eight more: one parent id already taken (a unique violation) and one child id
  // already taken (its check fails). The statement they share fails whole; then each
  // transaction alone: those two refused with their own errors, the other six committed.
  before = { ...pgDb.commitStats };
  const outcomes = await Promise.allSettled(
    Array.from({ length: MAX_COMBINED }, (_, k) => {
      const n = 100 + k;
      if (k === 3) return create(n, { parent: 'p0' });
      if (k === 6) return create(n, { child: 'c1' });
      return create(n);
    }),
  );
  expect(outcomes.map((o) => o.status)).toEqual(
    Array.from({ length: MAX_COMBINED }, (_, k) => (k === 3 || k === 6 ? 'rejected' : 'fulfilled')),
  );
  expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({
    code: 'unique_violation',
  });
  expect(((outcomes[6] as PromiseRejectedResult).reason as Error).message).toBe('not one row');
  const parents = await ids('a');
  const children = await ids('b');
  for (let k = 0; k < MAX_COMBINED; k++) {
    const committed = k !== 3 && k !== 6;
    expect(parents.includes(`p${100 + k}`)).toBe(committed);
    expect(children.includes(`c${100 + k}`)).toBe(committed);
  }
  // One shared statement that failed, then eight alone.
  expect(pgDb.commitStats.statements - before.statements).toBe(1 + MAX_COMBINED);
  expect(pgDb.commitStats.reads - before.reads).toBe(MAX_COMBINED);
});
