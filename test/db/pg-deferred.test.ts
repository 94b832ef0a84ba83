/**
 * Held writes on PostgreSQL (`runDeferred`, `PostgresTx`): they commit with the transaction
 * or not at all, a read that could see them sends them first, a failing check rolls the whole
 * transaction back, with or without `BEGIN` sent, and statements run at once share one `BEGIN`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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
  const changes: number[] = [];
  await db.transaction(async (tx) => {
    await runDeferred(tx, 'INSERT INTO a (id) VALUES ($1)', ['a1'], (n) => changes.push(n));
    await runDeferred(tx, 'INSERT INTO b (id, a_id) VALUES ($1, $2)', ['b1', 'a1']);
    // A plain read of a table no held write touches does not send them.
    expect(await tx.all('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
  expect(changes).toEqual([1]);
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

it('rolls everything back when a check fails, with or without BEGIN sent', async (ctx) => {
  if (test === undefined) return ctx.skip();
  const refuse = () => {
    throw new Error('refused');
  };
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
  expect(await ids('a')).not.toEqual(expect.arrayContaining(['a3']));
  for (const id of ['a3', 'a4', 'a5', 'a6']) expect(await ids('a')).not.toContain(id);
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
