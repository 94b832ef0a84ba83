/**
 * The PostgreSQL adapter (`openPostgres`, `PostgresDb`): the pools, shared reads and turn
 * commits put together behind the `Db` interface. The parts live in the `pg-*.ts` files beside
 * it (docs/design.md, Storage).
 */
import type pg from 'pg';
import { toDbError } from './pg-errors.js';
import { openPool } from './pg-pool.js';
import { query } from './pg-query.js';
import { PgSharedReads } from './pg-shared-reads.js';
import { PostgresTx } from './pg-transaction.js';
import { TurnCommits } from './pg-turn-commits.js';
import type { Db, RunResult, SqlParams, TransactionOptions } from './types.js';

/** Pool size when the URL does not say; the service is mostly I/O on this pool. */
const DEFAULT_POOL_SIZE = 10;

/**
 * Opens a PostgreSQL pool from a `postgres://` URL (pass `?options=-c search_path=s` to work
 * in one schema). Statements run as named prepared statements, named by a hash of their text,
 * so each connection parses a statement once and reuses the plan afterwards. With `prepare`
 * false (`DATABASE_PREPARE=off`, for a pooler in transaction mode) every statement is unnamed
 * and nothing is set per session: see `unnamed`.
 */
export function openPostgres(
  url: string,
  poolSize = DEFAULT_POOL_SIZE,
  prepare = true,
): PostgresDb {
  return new PostgresDb(
    openPool(url, poolSize, prepare),
    url,
    Math.max(2, Math.ceil(poolSize / 4)),
    prepare,
  );
}

function ignoreDroppedConnection(): void {}

export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  #closed = false;
  readonly #shared: PgSharedReads;
  /**
   * Shared reads asked inside transactions before their `BEGIN`. Sent on the small pool of
   * one-statement sessions (`volatile`), never on the main pool: every main connection may be
   * held by a transaction waiting for such a read, and none would come free for it. Not on
   * the asking transaction's own connection either: a statement it runs meanwhile could send
   * `BEGIN` first, and the read would then see its uncommitted rows for everyone sharing it.
   */
  readonly #txShared: PgSharedReads;
  /** Idempotency claims of one turn, combined into one statement (`PgSharedReads` writes). */
  readonly #claims: PgSharedReads;
  /** Transactions of one turn that are one statement each, committed as one (`TurnCommits`). */
  readonly #commits = new TurnCommits();
  #volatilePool: pg.Pool | undefined;
  constructor(
    readonly pool: pg.Pool,
    private readonly url: string,
    private readonly volatilePoolSize: number,
    private readonly prepare = true,
  ) {
    this.#shared = new PgSharedReads(async (sql, params) => (await query(pool, sql, params)).rows);
    this.#txShared = new PgSharedReads(async (sql, params) => this.#volatileOne(sql, params));
    this.#claims = new PgSharedReads(async (sql, params) => this.#volatileOne(sql, params), {
      writes: true,
    });
  }

  /** Transactions committed so far as one statement each (`reads`) and statements sent. */
  get commitStats(): Readonly<TurnCommits['stats']> {
    return this.#commits.stats;
  }

  /** The same for the idempotency claims combined per turn (see `volatile`). */
  get claimStats(): Readonly<PgSharedReads['stats']> {
    return this.#claims.stats;
  }

  /** What read sharing has done so far (see `PgSharedReads`). */
  get readStats(): Readonly<PgSharedReads['stats']> {
    return this.#shared.stats;
  }

  /** The same for the reads transactions share before their `BEGIN` (see `#txShared`). */
  get transactionReadStats(): Readonly<PgSharedReads['stats']> {
    return this.#txShared.stats;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    if (PgSharedReads.shareable(sql)) return (await this.#shared.all(sql, params)) as T[];
    return (await query<T>(this.pool, sql, params)).rows as T[];
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    return { changes: (await query(this.pool, sql, params)).rowCount ?? 0 };
  }

  /**
   * One pooled client for the whole transaction, released whatever happens. `BEGIN` is sent
   * only when the transaction needs it (see `PostgresTx`): a write made only of plain reads
   * and deferred statements commits as one statement, without `BEGIN` and `COMMIT`.
   */
  async transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw toDbError(err);
    }
    // A connection that drops while checked out (a pooler or server restarting between two
    // statements) emits 'error' on the client, which the pool only handles for idle ones:
    // unheard, it would end the process. The next statement fails with it instead (a 503).
    client.on('error', ignoreDroppedConnection);
    const tx = new PostgresTx(client, 1, undefined, this.#txShared, this.#commits);
    let broken: Error | undefined;
    try {
      if (options?.durable === false) {
        // One message, one round trip: both statements without parameters.
        await query(client, 'BEGIN; SET LOCAL synchronous_commit = off');
        tx.begun = true;
      }
      const result = await fn(tx);
      await tx.commit();
      return result;
    } catch (err) {
      if (tx.begun) {
        try {
          await query(client, 'ROLLBACK');
        } catch (rollbackErr) {
          // A connection that cannot roll back is not given back to the pool.
          broken = rollbackErr instanceof Error ? rollbackErr : new Error('rollback failed');
        }
      }
      throw err;
    } finally {
      tx.end();
      client.off('error', ignoreDroppedConnection);
      client.release(broken);
    }
  }

  /**
   * One statement committed by itself without waiting for the WAL flush
   * (`synchronous_commit = off`), on a small pool of its own whose sessions have that setting:
   * one round trip instead of four (`BEGIN`, `SET LOCAL`, the statement, `COMMIT`). For state
   * that is cheap to lose (idempotency claims, rate-limit leases); see `volatileAll`.
   * Claims (`PgSharedReads.combinableWrite`) asked in one turn go as one statement: each
   * claim sent alone cost the service a socket write, about 70 µs of its CPU per create under
   * bench:server's POST on this virtual machine (`--cpu-prof`).
   */
  async volatile<T>(sql: string, params?: SqlParams): Promise<T[]> {
    if (PgSharedReads.combinableWrite(sql)) return (await this.#claims.all(sql, params)) as T[];
    return this.#volatileOne(sql, params);
  }

  async #volatileOne<T>(sql: string, params?: SqlParams): Promise<T[]> {
    // Unprepared (a transaction pooler): no session setting, which PgBouncer refuses as a
    // startup option and which would outlive its transaction on a shared server connection;
    // these statements then commit durably, still one round trip each.
    this.#volatilePool ??= this.prepare
      ? openPool(this.url, this.volatilePoolSize, true, 'synchronous_commit=off')
      : openPool(this.url, this.volatilePoolSize, false);
    return (await query<T>(this.#volatilePool, sql, params)).rows as T[];
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([this.pool.end(), this.#volatilePool?.end()]);
  }
}
