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
