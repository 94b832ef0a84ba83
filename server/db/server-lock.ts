/**
 * One server process per SQLite file. A server clears in-flight idempotency claims at start,
 * which is only right when no other server is using the file; several processes need
 * PostgreSQL. The lock is SQLite's own: an exclusive transaction held on a small file beside
 * the database, so the operating system drops it when the process ends, however it ends.
 * Command-line tools (`keys`, `audit`) do not take it and keep working beside a server.
 */
import Database from 'better-sqlite3';

/** Another server holds the file; `main` prints the message and exits. */
export class ServerLockError extends Error {
  override readonly name = 'ServerLockError';
}

export interface ServerLock {
  release(): void;
}

/** Takes the server lock of the SQLite database at `dbPath`, or throws `ServerLockError`. */
export function lockSqliteForServer(dbPath: string): ServerLock {
  const lockPath = `${dbPath}.server-lock`;
  const lock = new Database(lockPath, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new ServerLockError(
        `another server is already running on ${dbPath} (one server per SQLite file; run several against PostgreSQL)`,
      );
    }
    throw error;
  }
  return {
    release: () => {
      if (lock.open) lock.close();
    },
  };
}
