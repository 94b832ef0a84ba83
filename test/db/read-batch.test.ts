/**
 * Read batching in the SQLite adapter: reads asked for in one event loop turn run together at
 * its end in one read transaction, identical reads run once, every caller gets its own array,
 * nothing is answered from before the caller asked, and a failing read fails alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqlite, type SqliteDb } from '../../server/db/sqlite.js';

let dir: string;
let db: SqliteDb;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'read-batch-'));
  db = openSqlite(join(dir, 'db.sqlite'));
  await db.run('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  await db.transaction(async (tx) => {
    for (let i = 0; i < 5; i++) await tx.run('INSERT INTO t (id, n) VALUES ($1, $2)', [`r${i}`, i]);
  });
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const ALL = 'SELECT id, n FROM t WHERE n >= $1 ORDER BY id';

it('runs identical reads of one turn once, and gives each caller its own array', async () => {
  const before = { ...db.readStats };
  const [a, b, c] = await Promise.all([db.all(ALL, [1]), db.all(ALL, [1]), db.all(ALL, [3])]);
  expect(a).toEqual([
    { id: 'r1', n: 1 },
    { id: 'r2', n: 2 },
    { id: 'r3', n: 3 },
    { id: 'r4', n: 4 },
  ]);
  expect(b).toEqual(a);
  expect(b).not.toBe(a);
  expect(c).toEqual([
    { id: 'r3', n: 3 },
    { id: 'r4', n: 4 },
  ]);
  // One batch, two statements (the [1] read served two callers).
  expect(db.readStats.batches - before.batches).toBe(1);
  expect(db.readStats.statements - before.statements).toBe(2);
  expect(db.readStats.coalesced - before.coalesced).toBe(1);
  // Reordering one caller's array or changing its rows leaves the other's alone.
  expect(b[0]).not.toBe(a[0]);
  a.reverse();
  a[0]!.n = -1;
  expect(b[0]).toEqual({ id: 'r1', n: 1 });
  expect(b[3]).toEqual({ id: 'r4', n: 4 });
});

it('gives each caller of a shared single-row read its own row', async () => {
  const sql = 'SELECT id, n FROM t WHERE id = $1';
  const [x, y, none] = await Promise.all([
    db.get<{ id: string; n: number }>(sql, ['r2']),
    db.get<{ id: string; n: number }>(sql, ['r2']),
    db.get(sql, ['nope']),
  ]);
  expect(y).toEqual(x);
  expect(y).not.toBe(x);
  expect(none).toBeUndefined();
});

it('keeps reads with different parameters apart, whatever their text', async () => {
  const sql = 'SELECT count(*) AS k FROM t WHERE id = $1 OR id = $2';
  // Same joined text ("r1" + "r2" vs "r1r" + "2"), different parameter lists.
  const [x, y, z] = await Promise.all([
    db.get<{ k: number }>(sql, ['r1', 'r2']),
    db.get<{ k: number }>(sql, ['r1r', '2']),
    db.get<{ k: number }>(sql, [1, '2']),
  ]);
  expect([x?.k, y?.k, z?.k]).toEqual([2, 0, 0]);
});

it('answers from a snapshot taken after the caller asked: a commit before the batch is seen', async () => {
  const read = db.get<{ n: number }>('SELECT n FROM t WHERE id = $1', ['r0']);
  // Another connection (as another process) commits in the same turn, after the read was asked.
  const other = new Database(join(dir, 'db.sqlite'));
  other.prepare('UPDATE t SET n = 100 WHERE id = ?').run('r0');
  other.close();
  expect(await read).toEqual({ n: 100 });
});

it('gives every read of a batch the same snapshot', async () => {
  const sums = await Promise.all([
    db.get<{ s: number }>('SELECT sum(n) AS s FROM t'),
    db.all<{ n: number }>('SELECT n FROM t'),
  ]);
  expect(sums[0]?.s).toBe(sums[1].reduce((s, r) => s + r.n, 0));
});

it('fails a bad read alone; the rest of its batch is answered', async () => {
  const results = await Promise.allSettled([
    db.all('SELECT n FROM t WHERE id = $1', ['r2']),
    // Prepares fine, fails when run (integer overflow).
    db.all('SELECT abs($1) AS v', [-9223372036854775808n]),
    db.get('SELECT count(*) AS k FROM t'),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((results[0] as PromiseFulfilledResult<unknown>).value).toEqual([{ n: 2 }]);
  expect((results[2] as PromiseFulfilledResult<unknown>).value).toEqual({ k: 5 });
  // The read connection is left outside any transaction, and later reads work.
  expect(await db.get('SELECT count(*) AS k FROM t')).toEqual({ k: 5 });
});

it('rejects reads still waiting when the database closes', async () => {
  const read = db.all('SELECT n FROM t');
  await db.close();
  await expect(read).rejects.toThrow('database is closed');
});
