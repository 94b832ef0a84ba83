/**
 * SQLite backups: SQLite's online backup API (better-sqlite3 `backup()`), run beside a live
 * service. The whole copy is one step, so it reads one snapshot: the service's WAL mode lets
 * writes go on meanwhile, and a step never restarts because another connection wrote (which
 * SQLite does between steps, and under steady writes a many-step copy might never finish).
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { CommandFailure } from '../cli/command.js';
import { lockSqliteForServer } from '../db/server-lock.js';

/** The most pages better-sqlite3 copies in one step: all of any real database. */
const ALL_PAGES = 0x7fffffff;

/** Copies the database at `path` to `to` (through `to.partial`, renamed once complete). */
export async function backupSqlite(path: string, to: string): Promise<{ pages: number }> {
  if (!existsSync(path)) throw new CommandFailure(`no database at ${path}`);
  const partial = `${to}.partial`;
  rmSync(partial, { force: true });
  const source = new Database(path, { fileMustExist: true, readonly: true });
  try {
    const result = await source.backup(partial, { progress: () => ALL_PAGES });
    // A copy is in the source's WAL mode; a rollback-journal file is one self-contained file
    // (no -wal or -shm beside it), which a read-only medium can hold. The service switches
    // it back to WAL when it opens it.
    const copy = new Database(partial, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new CommandFailure('the copy failed its check; nothing written');
    } finally {
      copy.close();
    }
    renameSync(partial, to);
    return { pages: result.totalPages };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}

/** Tables in the SQLite database at `path` (0 when there is no file). */
export function sqliteTableCount(path: string): number {
  if (!existsSync(path)) return 0;
  const db = new Database(path, { fileMustExist: true, readonly: true });
  try {
    const row = db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'")
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `path` with the backup `from`, holding the server lock meanwhile:
 * a service running on `path` makes it refuse, and none can start half way.
 */
export async function restoreSqlite(from: string, path: string): Promise<void> {
  const lock = lockSqliteForServer(path);
  try {
    const source = new Database(from, { fileMustExist: true, readonly: true });
    try {
      // The backup API writes through SQLite's own locks and journal into the target, so a
      // stale -wal beside an old target cannot be replayed over the restored pages.
      await source.backup(path, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
  } finally {
    lock.release();
  }
}
