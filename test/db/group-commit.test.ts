/**
 * Group commit in the SQLite adapter: concurrent transactions share one COMMIT, each caller
 * hears back only after that COMMIT returned, a failing transaction rolls back alone, and
 * acknowledged rows survive kill -9.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqlite, type SqliteDb } from '../../server/db/sqlite.js';

let dir: string;
let path: string;
let db: SqliteDb;
let observer: Database.Database;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
  path = join(dir, 'db.sqlite');
  db = openSqlite(path);
  await db.run('CREATE TABLE t (id TEXT PRIMARY KEY)');
  // Another connection, as another process would see the file.
  observer = new Database(path, { readonly: true });
});

afterEach(async () => {
  observer.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const visible = (id: string) =>
  observer.prepare('SELECT count(*) AS n FROM t WHERE id = ?').get(id) as { n: number };

it('acknowledges concurrent transactions only after their shared COMMIT', async () => {
  const ran: string[] = [];
  const seenAtAck: Array<{ id: string; ranBefore: number; visible: number }> = [];
  const ids = Array.from({ length: 10 }, (_, i) => `r${i}`);
  await Promise.all(
    ids.map((id) =>
      db
        .transaction(async (tx) => {
          await tx.run('INSERT INTO t (id) VALUES ($1)', [id]);
          // Uncommitted: no other connection sees it while the unit runs.
          expect(visible(id).n).toBe(0);
          ran.push(id);
        })
        .then(() => seenAtAck.push({ id, ranBefore: ran.length, visible: visible(id).n })),
    ),
  );
  // Every caller heard back after all ten had run (one batch), and its row was committed.
  expect(seenAtAck.map((s) => s.ranBefore)).toEqual(ids.map(() => 10));
  expect(seenAtAck.every((s) => s.visible === 1)).toBe(true);
});

it('rolls back a failing transaction alone; the rest of its batch commits', async () => {
  const results = await Promise.allSettled([
    db.transaction((tx) => tx.run('INSERT INTO t (id) VALUES ($1)', ['a'])),
    db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (id) VALUES ($1)', ['b']);
      throw new Error('handler failed after writing');
    }),
    // A constraint error inside the same batch (duplicate of `a`).
    db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (id) VALUES ($1)', ['c']);
      await tx.run('INSERT INTO t (id) VALUES ($1)', ['a']);
    }),
    db.transaction((tx) => tx.run('INSERT INTO t (id) VALUES ($1)', ['d'])),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason.message).toBe('handler failed after writing');
  const rows = observer.prepare('SELECT id FROM t ORDER BY id').all() as Array<{ id: string }>;
  expect(rows.map((r) => r.id)).toEqual(['a', 'd']);
});

it('releases the write lock when the only transaction of a batch fails', async () => {
  // A failing unit that opened the batch: nothing commits it later, so it must end at once,
  // or the read-audit thread and other processes wait for the lock until some write succeeds.
  await expect(
    db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (id) VALUES ($1)', ['x']);
      throw new Error('handler failed');
    }),
  ).rejects.toThrow('handler failed');
  const other = new Database(path, { timeout: 0 });
  try {
    expect(() => other.exec('BEGIN IMMEDIATE; ROLLBACK')).not.toThrow();
  } finally {
    other.close();
  }
  expect(visible('x').n).toBe(0);
});

it('commits a non-durable batch before a durable transaction joins, and both persist', async () => {
  await Promise.all([
    db.transaction((tx) => tx.run('INSERT INTO t (id) VALUES ($1)', ['fast']), { durable: false }),
    db.transaction((tx) => tx.run('INSERT INTO t (id) VALUES ($1)', ['safe'])),
  ]);
  expect(visible('fast').n).toBe(1);
  expect(visible('safe').n).toBe(1);
});

it('keeps every acknowledged row after kill -9 during concurrent writes', async () => {
  const crashPath = join(dir, 'crash.sqlite');
  const child = fork(join(import.meta.dirname, 'fixtures', 'group-commit-child.ts'), [crashPath], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const acked: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('message', (id: string) => {
      acked.push(id);
      if (acked.length === 300) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((resolve) => child.once('exit', resolve));
  const reopened = openSqlite(crashPath);
  try {
    const stored = new Set(
      (await reopened.all<{ id: string }>('SELECT id FROM acked')).map((r) => r.id),
    );
    expect(acked.filter((id) => !stored.has(id))).toEqual([]);
    expect(await reopened.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
  } finally {
    await reopened.close();
  }
}, 60_000);
