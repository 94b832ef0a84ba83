/** PostgreSQL's transaction handle (`PostgresTx`): late `BEGIN`, held writes, savepoints. */
import type pg from 'pg';
import type { Deferred } from './pg-combine.js';
import { sendDeferred } from './pg-held-writes.js';
import { query } from './pg-query.js';
import { PgSharedReads } from './pg-shared-reads.js';
import type { TurnCommits } from './pg-turn-commits.js';
import { markTransaction } from './transaction-handles.js';
import type { Db, ExpectedChanges, RunResult, SqlParams } from './types.js';

const INSERT_TARGET = /^\s*insert\s+into\s+([a-z_][a-z0-9_]*)\s*\(/i;

/**
 * A transaction's handle. Two things save round trips, each one a socket write and read that
 * cost the service more CPU than the statement itself (node --cpu-prof of `POST /v1/patients`
 * on main: `writev` and the driver's send path were 40% of busy samples):
 *
 * - `BEGIN` waits for the first statement that needs it. Plain reads (`PgSharedReads.shareable`:
 *   no row locks, no effects) before it run alone, which at READ COMMITTED (a snapshot per
 *   statement) reads what the same read inside the transaction would. A plain read of tables
 *   no held write inserts into runs without sending the held writes (it could not see them).
 * - Statements passed to `defer` (see `runDeferred`) are held, then sent together as one
 *   statement of data-modifying CTEs before anything else runs on the connection, or at
 *   commit. If the transaction never needed `BEGIN`, that one statement is the whole
 *   transaction (autocommit, durable as any commit): atomic, and no `BEGIN`/`COMMIT` round
 *   trips. A held write's expected row count (the stored idempotent response: no other
 *   request completed the key meanwhile) must refuse before anything commits: one is checked
 *   inside that statement, which then fails whole; only a batch with several keeps `BEGIN`
 *   and checks them after it, before `COMMIT`.
 */
export class PostgresTx implements Db {
  readonly dialect = 'postgres' as const;
  #open = true;
  /** Whether `BEGIN` was sent. */
  begun = false;
  #beginning: Promise<unknown> | undefined;
  #deferred: Deferred[] = [];
  readonly #shared: PgSharedReads | undefined;
  readonly #commits: TurnCommits | undefined;
  constructor(
    readonly client: pg.PoolClient,
    readonly depth: number,
    readonly parent?: PostgresTx,
    /**
     * The reads transactions share before `BEGIN` (`PostgresDb`'s `#txShared`); the outermost
     * handle only. See `all`.
     */
    shared?: PgSharedReads,
    /** Where a transaction that is one statement commits with others of its turn; the outermost only. */
    commits?: TurnCommits,
  ) {
    this.#shared = shared;
    this.#commits = commits;
    markTransaction(this);
  }

  end(): void {
    this.#open = false;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    this.#assertOpen();
    const plain = PgSharedReads.shareable(sql);
    const root = this.#root();
    // A plain read of tables no held write touches reads the same before those writes.
    if (!plain || root.#touches(sql)) await this.#ready(!plain);
    // Before `BEGIN` such a read is a statement of its own with its own snapshot, as on the
    // pool, so identical ones of this turn share one query: a create's subscribed-endpoint
    // lookup, asked by every concurrent create (see `PostgresDb`'s `#txShared`).
    if (plain && !root.begun && root.#shared !== undefined) {
      return (await root.#shared.all(sql, params)) as T[];
    }
    return (await query<T>(this.client, sql, params)).rows as T[];
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    this.#assertOpen();
    await this.#ready(true);
    return { changes: (await query(this.client, sql, params)).rowCount ?? 0 };
  }

  /**
   * A transaction's first statement, one without parameters, sent with its `BEGIN` as one
   * message: one round trip instead of two (the read audit batch's lock on the chain head,
   * server/audit/chain.ts). Once begun, or with writes held, it is an ordinary `all`.
   */
  async beginWith<T = Record<string, unknown>>(sql: string): Promise<T[]> {
    this.#assertOpen();
    const root = this.#root();
    if (root.begun || root.#deferred.length > 0) return this.all<T>(sql);
    root.begun = true;
    const sent = query(this.client, `BEGIN; ${sql}`);
    root.#beginning = sent;
    // Two statements in one simple-protocol message: pg answers with one result each.
    const results = (await sent) as unknown as pg.QueryResult[];
    return (results.at(-1)?.rows ?? []) as T[];
  }

  /** Holds a write whose result only its `expected` row count needs. */
  defer(sql: string, params: SqlParams | undefined, expected?: ExpectedChanges): void {
    this.#assertOpen();
    this.#root().#deferred.push({ sql, params, expected });
  }

  /**
   * Whether a read of `sql` could see what the held writes change: they are all plain
   * `INSERT`s (no insert triggers in the schema) into tables `sql` does not name, or not.
   */
  #touches(sql: string): boolean {
    return this.#deferred.some((statement) => {
      const table = INSERT_TARGET.exec(statement.sql)?.[1];
      return table === undefined || new RegExp(`\\b${table}\\b`, 'i').test(sql);
    });
  }

  /** The outermost handle: it holds the deferred statements and the `BEGIN` state. */
  #root(): PostgresTx {
    return this.parent === undefined ? this : this.parent.#root();
  }

  /** Before a statement: `BEGIN` if it needs one (or deferred writes wait), then those writes. */
  async #ready(needsBegin: boolean): Promise<void> {
    const root = this.#root();
    if (!root.begun && (needsBegin || root.#deferred.length > 0)) {
      // Set before the await: statements a caller runs at once (Promise.all) send one BEGIN.
      root.begun = true;
      root.#beginning = query(this.client, 'BEGIN');
    }
    if (root.#beginning !== undefined) await root.#beginning;
    await root.#flush();
  }

  /** Sends the deferred statements, one round trip, and checks their row counts. */
  async #flush(): Promise<void> {
    const batch = this.#deferred;
    if (batch.length === 0) return;
    this.#deferred = [];
    await sendDeferred(this.client, batch);
  }

  /** At the end of the outermost transaction: the deferred writes, then `COMMIT` if begun. */
  async commit(): Promise<void> {
    // Several expected counts are checked after their statement, so it must not commit by
    // itself (autocommit): BEGIN first. One is checked inside it (see `combine`).
    if (this.#deferred.filter((statement) => statement.expected !== undefined).length > 1) {
      await this.#ready(true);
    }
    // Never begun: the held writes are the whole transaction, one statement that commits by
    // itself, so it may commit in one statement with others of this turn (`TurnCommits`).
    if (!this.begun && this.#commits !== undefined && this.#deferred.length > 0) {
      const batch = this.#deferred;
      this.#deferred = [];
      await this.#commits.commit(this.client, batch);
      return;
    }
    await this.#flush();
    if (this.begun) await query(this.client, 'COMMIT');
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    this.#assertOpen();
    await this.#ready(true);
    const name = `sp_${this.depth}`;
    const inner = new PostgresTx(this.client, this.depth + 1, this.#root());
    await query(this.client, `SAVEPOINT ${name}`);
    try {
      const result = await fn(inner);
      await this.#root().#flush();
      await query(this.client, `RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      // Writes deferred inside the savepoint are dropped with it.
      this.#root().#deferred = [];
      await query(this.client, `ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    } finally {
      inner.end();
    }
  }

  async close(): Promise<void> {}

  #assertOpen(): void {
    if (!this.#open) throw new Error('transaction handle used after the transaction ended');
  }
}
