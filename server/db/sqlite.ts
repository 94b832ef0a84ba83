import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Mutex } from './mutex.js';
import { StatementCache } from './sqlite-statements.js';
import type { Db, RunResult, SqlParams, TransactionOptions } from './types.js';

/** How long a connection waits for another process's lock before failing with `busy`. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens a SQLite database: WAL, `synchronous=FULL`, foreign keys on, busy timeout. `path` is
 * a file (its folder is created) or `:memory:`.
 *
 * better-sqlite3 is synchronous; this adapter makes it async and keeps interleaved requests
 * apart: one writer connection guarded by a FIFO lock (a transaction holds it from
 * `BEGIN IMMEDIATE` to `COMMIT`, across awaits), and, for files, a second read-only
 * connection so plain reads never wait for a transaction and never see uncommitted rows.
 */
export function openSqlite(path: string): SqliteDb {
  const memory = path === ':memory:' || path === '';
  if (!memory) mkdirSync(dirname(path), { recursive: true });
  const writer = new Database(memory ? ':memory:' : path, { timeout: BUSY_TIMEOUT_MS });
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.pragma('foreign_keys = ON');
  return new SqliteDb(writer, memory ? undefined : path);
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly #writer: StatementCache;
  #reader: StatementCache | undefined;
  readonly #readerPath: string | undefined;
  readonly #lock = new Mutex();
  #closed = false;
  // The writer's current synchronous mode: FULL (durable) as opened.
  #durable = true;

  constructor(writer: Database.Database, readerPath: string | undefined) {
    this.#writer = new StatementCache(writer);
    this.#readerPath = readerPath;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    const reader = this.#readerFor(sql);
    if (reader) return reader.get<T>(sql, params);
    return this.#exclusive(() => this.#writer.get<T>(sql, params));
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const reader = this.#readerFor(sql);
    if (reader) return reader.all<T>(sql, params);
    return this.#exclusive(() => this.#writer.all<T>(sql, params));
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.#exclusive(() => this.#writer.run(sql, params));
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.#assertOpen();
    await this.#lock.acquire();
    const durable = options?.durable !== false;
    const tx = new SqliteTx(this.#writer, 1);
    try {
      this.#setDurable(durable);
      this.#writer.run('BEGIN IMMEDIATE');
      try {
        const result = await fn(tx);
        this.#writer.run('COMMIT');
        return result;
      } catch (err) {
        if (this.#writer.connection.inTransaction) this.#writer.run('ROLLBACK');
        throw err;
      }
    } finally {
      tx.end();
      this.#lock.release();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#lock.acquire();
    this.#closed = true;
    this.#reader?.connection.close();
    this.#writer.connection.close();
    this.#lock.release();
  }

  /** Runs a statement on the writer outside any transaction, waiting for the lock if taken. */
  async #exclusive<T>(fn: () => T): Promise<T> {
    this.#assertOpen();
    if (!this.#lock.tryAcquire()) await this.#lock.acquire();
    try {
      this.#setDurable(true);
      return fn();
    } finally {
      this.#lock.release();
    }
  }

  // Reads go to the read-only connection (files only): WAL lets it see the last commit
  // while a transaction is open on the writer. Writes (incl. INSERT ... RETURNING) never do.
  #readerFor(sql: string): StatementCache | undefined {
    this.#assertOpen();
    if (this.#readerPath === undefined) return undefined;
    if (!this.#reader) {
      const connection = new Database(this.#readerPath, {
        readonly: true,
        fileMustExist: true,
        timeout: BUSY_TIMEOUT_MS,
      });
      this.#reader = new StatementCache(connection);
    }
    return this.#reader.isReadonly(sql) ? this.#reader : undefined;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('database is closed');
  }

  /**
   * Switches the writer between `synchronous=FULL` and `OFF` only when the next commit
   * needs the other mode, so a run of non-durable commits (rate limits) pays no pragma.
   * Called with the lock held, outside any transaction.
   */
  #setDurable(durable: boolean): void {
    if (this.#durable === durable) return;
    this.#writer.run(durable ? 'PRAGMA synchronous = FULL' : 'PRAGMA synchronous = OFF');
    this.#durable = durable;
  }
}

/** The handle a transaction callback gets: statements run directly on the locked writer. */
class SqliteTx implements Db {
  readonly dialect = 'sqlite' as const;
  #open = true;

  constructor(
    readonly statements: StatementCache,
    readonly depth: number,
  ) {}

  end(): void {
    this.#open = false;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    this.#assertOpen();
    return this.statements.get<T>(sql, params);
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    this.#assertOpen();
    return this.statements.all<T>(sql, params);
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    this.#assertOpen();
    return this.statements.run(sql, params);
  }

  /** Nested transaction: a savepoint inside the outer one. */
  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    this.#assertOpen();
    const name = `sp_${this.depth}`;
    const inner = new SqliteTx(this.statements, this.depth + 1);
    this.statements.run(`SAVEPOINT ${name}`);
    try {
      const result = await fn(inner);
      this.statements.run(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.statements.run(`ROLLBACK TO ${name}`);
      this.statements.run(`RELEASE ${name}`);
      throw err;
    } finally {
      inner.end();
    }
  }

  async close(): Promise<void> {}

  // A handle used after its transaction ended would write outside the lock.
  #assertOpen(): void {
    if (!this.#open) throw new Error('transaction handle used after the transaction ended');
  }
}
