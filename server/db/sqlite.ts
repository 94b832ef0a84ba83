import Database from 'better-sqlite3';
import { DbError } from './errors.js';
import { Mutex } from './mutex.js';
import { ReadBatcher } from './read-batch.js';
import { SqliteStateDb, type StateDb, statePathFor } from './sqlite-state.js';
import { StatementCache } from './sqlite-statements.js';
import { markTransaction } from './transaction-handles.js';
import type { Db, RunResult, SqlParams, TransactionOptions } from './types.js';

/** How long a connection waits for another process's lock before failing with `busy`. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens a SQLite database: WAL, `synchronous=FULL`, foreign keys on, busy timeout. `path` is
 * a file (its folder is created) or `:memory:`.
 *
 * better-sqlite3 is synchronous; this adapter makes it async and keeps interleaved requests
 * apart: one writer connection guarded by a FIFO lock (a transaction holds it across its
 * awaits), and, for files, a second read-only connection so plain reads never wait for a
 * transaction and never see uncommitted rows; those reads run together at the end of each event
 * loop turn (`ReadBatcher`, read-batch.ts). Transactions are group-committed (see
 * `SqliteDb.transaction`): with fsync costing milliseconds, one `COMMIT` per request would cap
 * writes at the disk's fsync rate, and each fsync blocks the event loop.
 */
export function openSqlite(path: string): SqliteDb {
  const memory = path === ':memory:' || path === '';
  // The folder is the caller's (open.ts's prepareSqliteFolder): never made here.
  // Opening waits for another process's lock like any connection: switching a fresh file to
  // WAL takes an exclusive lock, so several processes opening one new database at once (two
  // replicas starting, `npm run migrate` beside the service) would otherwise fail with `busy`.
  const writer = new Database(memory ? ':memory:' : path, { timeout: BUSY_TIMEOUT_MS });
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = FULL');
  writer.pragma('foreign_keys = ON');
  // Once open, no busy timeout on the writer: `#beginImmediate` waits for the write lock
  // asynchronously instead of sleeping on the event loop.
  writer.pragma('busy_timeout = 0');
  // Each unit of a group-commit batch runs in a savepoint, and SQLite keeps the pages a
  // savepoint changes in a sub-journal, spilled to a temporary file past 64 KiB — which one
  // POST's rows and indexes pass, so every POST wrote its pages there. In memory instead: the
  // sub-journal only lives until its savepoint ends, and temporary tables here are small.
  writer.pragma('temp_store = MEMORY');
  return new SqliteDb(writer, memory ? undefined : path, statePathFor(memory ? ':memory:' : path));
}

/**
 * Most transactions committed by one `COMMIT`. A batch normally closes at the end of the event
 * loop turn it was opened in; this bounds it when requests keep arriving within one turn.
 */
const MAX_BATCH = 256;

/** A transaction's caller, waiting for the `COMMIT` of the batch it ran in. */
interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** One SQLite transaction on the writer holding the work of several `transaction` calls. */
interface Batch {
  /** Opened with `synchronous=FULL` (any durable unit) or `OFF` (only non-durable units). */
  readonly durable: boolean;
  readonly waiters: Waiter[];
  units: number;
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
  /** The open batch (a `BEGIN IMMEDIATE` not yet committed), if any. */
  #batch: Batch | undefined;
  #commitScheduled = false;
  readonly #statePath: string;
  #state: SqliteStateDb | undefined;
  /** Plain reads on the read connection, run together at the end of each loop turn. */
  readonly #reads = new ReadBatcher(
    () => {
      // Reads are queued only after #readerFor opened the connection.
      if (this.#reader === undefined) throw new Error('the read connection is not open');
      return this.#reader;
    },
    () => this.#closed,
  );

  constructor(writer: Database.Database, readerPath: string | undefined, statePath = ':memory:') {
    this.#writer = new StatementCache(writer);
    this.#readerPath = readerPath;
    this.#statePath = statePath;
  }

  /** What read batching has done so far (see `ReadBatcher`). */
  get readStats(): Readonly<ReadBatcher['stats']> {
    return this.#reads.stats;
  }

  /** The database file, or undefined for an in-memory database. */
  get filePath(): string | undefined {
    return this.#readerPath;
  }

  /**
   * The state file beside this database (see `SqliteStateDb`): where rate-limit buckets live
   * on SQLite, so updating one never takes this database's write lock. Opened on first use.
   */
  get state(): StateDb {
    this.#assertOpen();
    this.#state ??= new SqliteStateDb(this.#statePath);
    return this.#state;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    const reader = this.#readerFor(sql);
    if (reader) return this.#reads.read<T | undefined>('get', sql, params);
    // On the writer (memory databases, writes with RETURNING): a unit of its own, answered
    // once its batch commits, so it never hands out rows that could still be rolled back.
    return this.transaction(async (tx) => tx.get<T>(sql, params));
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const reader = this.#readerFor(sql);
    if (reader) return this.#reads.read<T[]>('all', sql, params);
    return this.transaction(async (tx) => tx.all<T>(sql, params));
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    return this.transaction(async (tx) => tx.run(sql, params));
  }

  /**
   * Group commit. Each call is a unit: it runs alone on the writer (FIFO lock, held across its
   * awaits) inside a savepoint of the open batch transaction, so a unit that throws rolls back
   * alone. The batch commits once the event loop turn that opened it has run every unit that
   * arrived (`setImmediate`), or at `MAX_BATCH` units; durable units resolve only after that
   * `COMMIT` returned (synchronous=FULL), so one fsync acknowledges every write in the batch.
   * Non-durable units (`durable: false`) resolve at their savepoint's release: they may be
   * lost with a crash or with a failing batch, which is their contract.
   */
  async transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.#assertOpen();
    await this.#lock.acquire();
    const durable = options?.durable !== false;
    let committed: Promise<void> | undefined;
    let result: T;
    try {
      this.#assertOpen();
      const batch = await this.#openBatch(durable);
      const tx = new SqliteTx(this.#writer, 1);
      this.#writer.run('SAVEPOINT unit');
      try {
        result = await fn(tx);
        this.#writer.run('RELEASE unit');
      } catch (err) {
        this.#rollbackUnit(batch);
        // A batch the failing unit opened holds nothing and nobody waits for it: end it now,
        // or its BEGIN IMMEDIATE keeps the write lock from the read-audit thread and other
        // processes until some later unit succeeds (no commit is scheduled for it).
        if (this.#batch === batch && batch.units === 0) this.#failBatch(batch, err);
        throw err;
      } finally {
        tx.end();
      }
      batch.units += 1;
      if (durable) {
        committed = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
      }
      if (batch.units >= MAX_BATCH) this.#commit();
      else this.#scheduleCommit();
    } finally {
      this.#lock.release();
    }
    if (committed) await committed;
    return result;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#lock.acquire();
    this.#closed = true;
    try {
      this.#commit();
    } finally {
      this.#reader?.connection.close();
      this.#state?.close();
      this.#writer.connection.close();
      this.#lock.release();
    }
  }

  /** The batch a unit joins; opens one (BEGIN IMMEDIATE) if none fits. Lock held. */
  async #openBatch(durable: boolean): Promise<Batch> {
    const open = this.#batch;
    // A non-durable batch commits without fsync, so a durable unit may not join it; commit
    // it first (cheap: nothing to wait for) and open a durable one.
    if (open && (open.durable || !durable)) return open;
    if (open) this.#commit();
    this.#setDurable(durable);
    await this.#beginImmediate();
    const batch: Batch = { durable, waiters: [], units: 0 };
    this.#batch = batch;
    return batch;
  }

  /**
   * `BEGIN IMMEDIATE`, waiting without blocking the event loop while another connection (the
   * read-audit thread, another process) holds the write lock. The writer's own busy timeout
   * is 0: SQLite's busy handler sleeps on the calling thread, which here is the event loop.
   */
  async #beginImmediate(): Promise<void> {
    const deadline = performance.now() + BUSY_TIMEOUT_MS;
    for (let wait = 0.5; ; wait = Math.min(wait * 2, 4)) {
      try {
        this.#writer.run('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if (!(err instanceof DbError && err.code === 'busy') || performance.now() > deadline) {
          throw err;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Undoes a failed unit's savepoint; if SQLite rolled the whole batch back, fails it. */
  #rollbackUnit(batch: Batch): void {
    try {
      if (this.#writer.connection.inTransaction) {
        this.#writer.run('ROLLBACK TO unit');
        this.#writer.run('RELEASE unit');
        return;
      }
    } catch {
      // The savepoint is gone with the transaction: handled below.
    }
    // Some errors (SQLITE_FULL, IOERR, …) end the transaction: the earlier units' work is
    // gone too, and their callers must hear it rather than be acknowledged.
    this.#failBatch(
      batch,
      new Error('the batch transaction was rolled back by a failing statement'),
    );
  }

  #failBatch(batch: Batch, error: unknown): void {
    if (this.#batch === batch) this.#batch = undefined;
    if (this.#writer.connection.inTransaction) {
      try {
        this.#writer.run('ROLLBACK');
      } catch {
        // Nothing more can be undone; the callers below get the original error.
      }
    }
    for (const waiter of batch.waiters) waiter.reject(error);
  }

  #scheduleCommit(): void {
    if (this.#commitScheduled) return;
    this.#commitScheduled = true;
    // After the I/O callbacks of this loop turn: requests that arrived together join one batch.
    setImmediate(() => {
      this.#commitScheduled = false;
      void this.#lock.acquire().then(() => {
        try {
          if (!this.#closed) this.#commit();
        } finally {
          this.#lock.release();
        }
      });
    });
  }

  /** Commits the open batch, then tells its waiters. Lock held. */
  #commit(): void {
    const batch = this.#batch;
    if (!batch) return;
    try {
      this.#writer.run('COMMIT');
    } catch (err) {
      this.#failBatch(batch, err);
      return;
    }
    this.#batch = undefined;
    for (const waiter of batch.waiters) waiter.resolve();
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
   * Switches the writer between `synchronous=FULL` and `OFF` only when the next batch needs
   * the other mode, so a run of non-durable batches (rate limits) pays no pragma. Called with
   * the lock held, outside any transaction (SQLite refuses the change inside one).
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
  ) {
    markTransaction(this);
  }

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
