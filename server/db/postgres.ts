import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';
import { DbError, type DbErrorCode } from './errors.js';
import { combinedParts, PgSharedReads } from './pg-shared-reads.js';
import { shiftPlaceholders } from './placeholders.js';
import { markTransaction } from './transaction-handles.js';
import type { Db, ExpectedChanges, RunResult, SqlParams, TransactionOptions } from './types.js';

/** int8 (BIGINT, COUNT(*)) comes back as a JS number: our values are ms timestamps and counts. */
const INT8_OID = 20;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

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

/**
 * Pools, and the clients they connect, whose statements go unnamed. Behind a pooler in
 * transaction mode (PgBouncer 1.18) consecutive transactions of one client may run on
 * different server connections, so a statement prepared by name on one is missing on the next
 * (`prepared statement "pc_…" does not exist`), and no session setting outlives its
 * transaction.
 */
const unnamed = new WeakSet<Queryable>();

/** A pool; `setting` (`name=value`) is given to every session it opens. */
function openPool(url: string, max: number, prepare: boolean, setting?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withSessionSetting(withDefaultUser(url), setting),
    max,
    // Fail rather than hang when the server is unreachable or the pool stays exhausted.
    connectionTimeoutMillis: 10_000,
    types: typeParsers,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  if (!prepare) {
    unnamed.add(pool);
    pool.on('connect', (client) => unnamed.add(client));
  }
  return pool;
}

/** The URL with `-c name=value` added to its `options` (which may already set search_path). */
function withSessionSetting(url: string, setting: string | undefined): string {
  if (setting === undefined) return url;
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  parsed.searchParams.set('options', `${options ? `${options} ` : ''}-c ${setting}`);
  return parsed.toString();
}

/**
 * node-postgres falls back to `$USER`, which services and containers often lack; like libpq,
 * use the operating-system user when neither the URL nor `PGUSER` names one.
 */
function withDefaultUser(url: string): string {
  const parsed = new URL(url);
  if (
    parsed.username ||
    parsed.searchParams.has('user') ||
    process.env.PGUSER ||
    process.env.USER
  ) {
    return url;
  }
  parsed.username = encodeURIComponent(userInfo().username);
  return parsed.toString();
}

type Queryable = pg.Pool | pg.PoolClient;

function ignoreDroppedConnection(): void {}

const names = new Map<string, string>();

/** A stable statement name per SQL text (PostgreSQL limits names to 63 bytes). */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `pc_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

// Only plain DML is prepared by name; utility statements (SET, DDL, advisory locks in
// migrations) run unnamed so they never occupy a slot in a connection's statement cache.
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

async function query<T>(on: Queryable, sql: string, params?: SqlParams): Promise<pg.QueryResult> {
  const values = (params ?? []).map(toPg);
  const config: pg.QueryConfig =
    PREPARABLE.test(sql) && !unnamed.has(on)
      ? { name: statementName(sql), text: sql, values }
      : { text: sql, values };
  try {
    return await on.query<T & pg.QueryResultRow>(config);
  } catch (err) {
    throw toDbError(err);
  }
}

function toPg(value: SqlParams[number]): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

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

/** A statement of a transaction whose result nobody waits for: sent with the next one. */
interface Deferred {
  sql: string;
  params: SqlParams | undefined;
  expected: ExpectedChanges | undefined;
}

/** The SQLSTATE of the division by zero a failed in-statement check raises (see `combine`). */
const CHECK_FAILED = '22012';

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

const INSERT_TARGET = /^\s*insert\s+into\s+([a-z_][a-z0-9_]*)\s*\(/i;

/**
 * Deferred writes as one statement: each an `INSERT`/`UPDATE`/`DELETE` without its own
 * `WITH` or `RETURNING`, becoming a CTE that returns a row per changed row, with its
 * placeholders renumbered; the outer `SELECT` counts each. All of them run on one snapshot and
 * do not see each other's rows, except through foreign keys, which are checked at the end of
 * the statement — so a batch never holds a write that reads another of the same batch.
 *
 * `checked`'s expected row count is compared in the outer `SELECT`: a different count divides
 * by zero (SQLSTATE 22012, `CHECK_FAILED`), which fails the whole statement, so none of its
 * writes commits even when it runs as its own transaction. Plain SQL, no function to install.
 */
function combine(
  batch: readonly Deferred[],
  checked?: Deferred,
): { sql: string; params: SqlParams } {
  const [only] = batch;
  if (batch.length === 1 && only !== undefined && checked === undefined) {
    return { sql: only.sql, params: only.params ?? [] };
  }
  const sql = combinedText(`d\u0001${heldShape(batch, checked)}`, () => {
    const { ctes, counts, check } = heldQueries(batch, checked, 'd', 0);
    const columns = counts.map((count, i) => `${count} AS c${i}`);
    if (check !== undefined) columns.push(`${check} AS checked`);
    return `WITH ${ctes.join(', ')} SELECT ${columns.join(', ')}`;
  });
  const params: SqlParams[number][] = [];
  heldParams(batch, checked, params);
  return { sql, params };
}

/**
 * What a transaction's held writes look like as one statement: their texts, parameter counts
 * and which one is checked. Held writes of one shape make the same combined text.
 */
function heldShape(batch: readonly Deferred[], checked: Deferred | undefined): string {
  return batch
    .map((statement) => {
      const mark = statement === checked ? '!' : '';
      return `${mark}${statement.params?.length ?? 0}:${statement.sql}`;
    })
    .join('\u0000');
}

/**
 * Combined statement texts by shape (and, for a turn's transactions, their count), made once.
 * Rebuilding each with its placeholders renumbered, then hashing the new text for its
 * statement name, took about 11 µs of the service's time per create under bench:server's POST
 * (`--cpu-prof`, 218 ms over 20,000 creates); the shape and the lookup take about 2 µs. Bounded
 * as the prepared statements they name are: by the code's statement shapes, times
 * `MAX_COMBINED`.
 */
const combinedTexts = new Map<string, string>();

function combinedText(key: string, build: () => string): string {
  let text = combinedTexts.get(key);
  if (text === undefined) {
    text = build();
    combinedTexts.set(key, text);
  }
  return text;
}

/**
 * A transaction's held writes as `WITH` queries named `${prefix}${i}`, each returning a row
 * per changed row, their placeholders numbered on after the `first` parameters before them;
 * each one's row count; and, for `checked`, the division by zero that fails the whole
 * statement when its count is not the expected one. `heldParams` gives the parameters, in the
 * same order.
 */
function heldQueries(
  batch: readonly Deferred[],
  checked: Deferred | undefined,
  prefix: string,
  first: number,
): { ctes: string[]; counts: string[]; check: string | undefined; next: number } {
  const ctes: string[] = [];
  const counts: string[] = [];
  let offset = first;
  for (const [i, statement] of batch.entries()) {
    ctes.push(`${prefix}${i} AS (${shiftPlaceholders(statement.sql, offset)} RETURNING 1)`);
    counts.push(`CAST((SELECT COUNT(*) FROM ${prefix}${i}) AS INTEGER)`);
    offset += statement.params?.length ?? 0;
  }
  let check: string | undefined;
  if (checked?.expected !== undefined) {
    offset += 1;
    const count = `(SELECT COUNT(*) FROM ${prefix}${batch.indexOf(checked)})`;
    check = `1 / (CASE WHEN ${count} = CAST($${offset} AS BIGINT) THEN 1 ELSE 0 END)`;
  }
  return { ctes, counts, check, next: offset };
}

/** Appends the parameters of `heldQueries`' text to `params`: each write's, then the count. */
function heldParams(
  batch: readonly Deferred[],
  checked: Deferred | undefined,
  params: SqlParams[number][],
): void {
  for (const statement of batch) params.push(...(statement.params ?? []));
  if (checked?.expected !== undefined) params.push(checked.expected.changes);
}

/** Which of a batch's expected counts its one statement checks itself (see `combine`). */
function checkedInStatement(batch: readonly Deferred[]): Deferred | undefined {
  const expecting = batch.filter((statement) => statement.expected !== undefined);
  return expecting.length === 1 ? expecting[0] : undefined;
}

/** Sends a transaction's deferred statements on its connection, one round trip, and checks them. */
async function sendDeferred(client: pg.PoolClient, batch: readonly Deferred[]): Promise<void> {
  // One expected count is checked by the statement itself; several are checked below.
  const inStatement = checkedInStatement(batch);
  const { sql, params } = combine(batch, inStatement);
  let result: pg.QueryResult;
  try {
    result = await query(client, sql, params);
  } catch (err) {
    if (inStatement?.expected && err instanceof DbError && err.driverCode === CHECK_FAILED) {
      throw inStatement.expected.otherwise();
    }
    throw err;
  }
  const counts =
    batch.length === 1
      ? [result.rowCount ?? 0]
      : batch.map((_, i) => Number((result.rows[0] as Record<string, unknown>)[`c${i}`]));
  checkCounts(batch, counts);
}

function checkCounts(batch: readonly Deferred[], counts: readonly number[]): void {
  for (const [i, { expected }] of batch.entries()) {
    if (expected !== undefined && counts[i] !== expected.changes) throw expected.otherwise();
  }
}

/** A transaction waiting to commit its one statement with others of the turn. */
interface PendingCommit {
  readonly client: pg.PoolClient;
  readonly batch: readonly Deferred[];
  /** The write its statement checks itself (`checkedInStatement`). */
  readonly checked: Deferred | undefined;
  /** `heldShape`: only commits of one shape share a statement. */
  readonly shape: string;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Transactions that are one statement each (never begun: their held writes, `combine`),
 * committed at the end of the turn they finished in as one statement with those of the same
 * shape (at most `MAX_COMBINED`, `combinedParts`), sent on the first one's connection: one
 * socket write and one WAL flush for several creates instead of one each. Each transaction's writes are `WITH` queries of
 * their own and each keeps its own in-statement check (the division by zero), so any
 * failure fails the whole statement, and nothing of it has committed. Then each transaction
 * is sent again alone on its own connection, as it would have been, and gets its own answer:
 * one transaction's refusal (a unique value, a completed idempotency key) is never another's.
 * A lost connection is not retried: whether the statement committed is unknown, as it is for
 * one transaction's statement, and every transaction of it gets that error.
 *
 * Held writes are plain INSERTs of new rows and each request's own idempotency record (see
 * `runDeferred`), so two transactions of one statement never write the same row unseen: an
 * idempotency record written twice fails its count check.
 */
export class TurnCommits {
  #pending: PendingCommit[] | undefined;
  /** Transactions committed (`reads`, as `PgSharedReads` counts) and statements sent for them. */
  readonly stats = { statements: 0, reads: 0 };

  commit(client: pg.PoolClient, batch: readonly Deferred[]): Promise<void> {
    let pending = this.#pending;
    if (pending === undefined) {
      pending = [];
      this.#pending = pending;
      setImmediate(() => this.#flush());
    }
    const list = pending;
    const checked = checkedInStatement(batch);
    const shape = heldShape(batch, checked);
    return new Promise((resolve, reject) =>
      list.push({ client, batch, checked, shape, resolve, reject }),
    );
  }

  #flush(): void {
    const pending = this.#pending ?? [];
    this.#pending = undefined;
    // Only transactions of one shape (the same statements, the same one checked) share a
    // statement, so its text is one of a bounded set (a shape, a count up to 8) and can be
    // a prepared statement like any other. Unnamed, a text per order and mix of shapes, each
    // parsed and planned afresh, cost PostgreSQL 0.06 of a core more and 9% of the POST
    // throughput (three pairs on this machine).
    for (const part of combinedParts(pending, (commit) => commit.shape)) {
      if (part.length === 1) this.#alone(part[0] as PendingCommit);
      else {
        this.#together(part).catch((error: unknown) => {
          for (const commit of part) commit.reject(error);
        });
      }
    }
  }

  #alone(commit: PendingCommit): void {
    this.stats.statements++;
    this.stats.reads++;
    sendDeferred(commit.client, commit.batch).then(commit.resolve, commit.reject);
  }

  async #together(part: readonly PendingCommit[]): Promise<void> {
    const { sql, params } = combineTransactions(part);
    this.stats.statements++;
    let rows: Record<string, unknown>[];
    try {
      rows = (await query(part[0]?.client as pg.PoolClient, sql, params)).rows;
    } catch (err) {
      if (err instanceof DbError && err.code === 'connection') {
        for (const commit of part) commit.reject(err);
        return;
      }
      for (const commit of part) this.#alone(commit);
      return;
    }
    this.stats.reads += part.length;
    for (const [i, commit] of part.entries()) {
      const row = rows.find((r) => Number(r.pc_tx) === i);
      try {
        checkCounts(commit.batch, ((row?.counts as number[] | undefined) ?? []).map(Number));
        commit.resolve();
      } catch (error) {
        commit.reject(error);
      }
    }
  }
}

/**
 * Several transactions' held writes as one statement: transaction `j`'s writes become the
 * `WITH` queries `t{j}_d{i}` (`heldQueries`, placeholders numbered on), and a row per
 * transaction gives its counts and, for its one expected count, the same division by zero.
 */
function combineTransactions(part: readonly PendingCommit[]): { sql: string; params: SqlParams } {
  const sql = combinedText(`t${part.length}\u0001${part[0]?.shape}`, () => {
    const ctes: string[] = [];
    const rows: string[] = [];
    let next = 0;
    for (const [j, commit] of part.entries()) {
      const held = heldQueries(commit.batch, commit.checked, `t${j}_d`, next);
      next = held.next;
      ctes.push(...held.ctes);
      rows.push(
        `SELECT ${j} AS pc_tx, ARRAY[${held.counts.join(', ')}] AS counts, ${held.check ?? '1'} AS checked`,
      );
    }
    return `WITH ${ctes.join(', ')} ${rows.join(' UNION ALL ')}`;
  });
  const params: SqlParams[number][] = [];
  for (const commit of part) heldParams(commit.batch, commit.checked, params);
  return { sql, params };
}

const PG_CODES: Record<string, DbErrorCode> = {
  '23505': 'unique_violation',
  '23503': 'foreign_key_violation',
  '23514': 'check_violation',
  '23502': 'not_null_violation',
  '40001': 'serialization_failure',
  '40P01': 'serialization_failure',
  '55P03': 'busy',
};

/**
 * Driver errors without values: `detail` and `where` are dropped, and messages of data
 * errors (class 22, which quote the offending input) are replaced by a generic one.
 */
function toDbError(err: unknown): unknown {
  if (err instanceof DbError || !(err instanceof Error)) return err;
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  // Socket errors (ECONNREFUSED, ...) carry no SQLSTATE; their messages hold no data.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) {
    return new DbError('connection', err.message, typeof code === 'string' ? code : undefined);
  }
  const mapped = PG_CODES[code] ?? (code.startsWith('08') ? 'connection' : 'other');
  const message = code.startsWith('22') ? `invalid data (SQLSTATE ${code})` : err.message;
  return new DbError(
    mapped,
    message,
    code,
    typeof constraint === 'string' ? constraint : undefined,
  );
}
