import { existsSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StatementCache } from './sqlite-statements.js';
import type { RunResult, SqlParams } from './types.js';

/** How long a connection waits for another process's lock; state writes hold it for µs. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The tables of the state file. Same columns as in the main schema (migration 0001), where
 * the PostgreSQL adapter keeps them; on SQLite they live here instead.
 */
const STATE_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS rate_limit_buckets (
    bucket_key TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    allowed INTEGER NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
];

/**
 * The state file beside a main database file: `data/patient-care.db` →
 * `data/patient-care.state.db`; `:memory:` stays in memory (a separate database).
 */
export function statePathFor(mainPath: string): string {
  if (mainPath === ':memory:' || mainPath === '') return ':memory:';
  return mainPath.endsWith('.db') ? `${mainPath.slice(0, -3)}.state.db` : `${mainPath}.state`;
}

/** What the state file offers: single statements (each atomic). */
export interface StateDb {
  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): T | undefined;
  run(sql: string, params?: SqlParams): RunResult;
  close(): void;
}

/**
 * High-frequency state that may be lost in a crash (rate-limit buckets) in a SQLite file of
 * its own: its own write lock and `synchronous=OFF`, so a request's bucket update never takes
 * the main database's write lock, never joins (or forces) one of its group commits, and never
 * waits behind its fsyncs. Several processes sharing the file still update a bucket
 * atomically: each statement is atomic, and the file's lock serialises writers.
 *
 * Statements of one event-loop turn share one transaction, committed (without fsync) once
 * the turn's I/O callbacks have run: a commit per statement costs about twice as much (WAL
 * frame and index update each time). The file's write lock is therefore held for at most a
 * loop turn; another process needing it waits that long.
 *
 * With `synchronous=OFF` a power loss (not a process crash) may corrupt this file; its
 * contents are disposable, so a file that fails its check at open is deleted and recreated.
 */
export class SqliteStateDb implements StateDb {
  readonly #statements: StatementCache;
  #inBatch = false;
  #closed = false;

  constructor(path: string) {
    this.#statements = new StatementCache(openChecked(path));
  }

  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): T | undefined {
    this.#join();
    return this.#statements.get<T>(sql, params);
  }

  run(sql: string, params?: SqlParams): RunResult {
    this.#join();
    return this.#statements.run(sql, params);
  }

  /** Commits what this loop turn wrote and closes the file. */
  close(): void {
    if (this.#closed) return;
    this.#commit();
    this.#closed = true;
    this.#statements.connection.close();
  }

  /** Opens this loop turn's transaction if none is open, and schedules its commit. */
  #join(): void {
    if (this.#closed) throw new Error('database is closed');
    if (this.#inBatch) return;
    this.#statements.run('BEGIN IMMEDIATE');
    this.#inBatch = true;
    setImmediate(() => this.#commit());
  }

  #commit(): void {
    if (!this.#inBatch || this.#closed) return;
    this.#inBatch = false;
    const connection = this.#statements.connection;
    try {
      if (connection.inTransaction) this.#statements.run('COMMIT');
    } catch {
      // Non-durable state: a failed commit loses a few bucket updates, which is its contract.
      if (connection.inTransaction) connection.exec('ROLLBACK');
    }
  }
}

function openChecked(path: string): Database.Database {
  try {
    return openState(path);
  } catch (err) {
    if (path === ':memory:') throw err;
    // Unreadable after a power loss (or not a database at all): the state is disposable.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      if (existsSync(file)) rmSync(file, { force: true });
    }
    return openState(path);
  }
}

function openState(path: string): Database.Database {
  const connection = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = OFF');
    const check = connection.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error('state database failed its check');
    for (const sql of STATE_SCHEMA) connection.exec(sql);
    return connection;
  } catch (err) {
    connection.close();
    throw err;
  }
}
