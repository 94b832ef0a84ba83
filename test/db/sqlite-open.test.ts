/**
 * Opening a SQLite file that another process holds locked: the open waits for the lock (as two
 * replicas starting on one new database do) instead of failing with `database is locked`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqlite } from '../../server/db/sqlite.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlite-open-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Another process creates `path` and holds an exclusive lock on it for `ms`. */
async function holdLock(path: string, ms: number): Promise<{ exited: Promise<unknown> }> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE held (id INTEGER)');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  await once(child.stdout, 'data');
  return { exited };
}

it('waits for another process that holds a fresh file locked, then opens it in WAL mode', async () => {
  const path = join(dir, 'test.db');
  const { exited } = await holdLock(path, 300);
  const db = openSqlite(path);
  try {
    expect(await db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    // The other process's table is there: the open waited for its commit.
    expect(await db.all("SELECT name FROM sqlite_master WHERE name = 'held'")).toEqual([
      { name: 'held' },
    ]);
  } finally {
    await db.close();
    await exited;
  }
});
