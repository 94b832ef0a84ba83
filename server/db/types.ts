/**
 * The storage contract every adapter (SQLite, PostgreSQL) implements.
 *
 * SQL is written once with `$1..$n` placeholders and portable types (TEXT, INTEGER, BIGINT,
 * DOUBLE PRECISION); booleans are stored as 0/1 integers so rows look the same in both
 * dialects, and JSON documents are stored as TEXT and parsed by the repositories.
 */

/** A value that can be bound to a placeholder. Booleans bind as 1/0, `undefined` as NULL. */
export type SqlValue = string | number | bigint | boolean | null | undefined | Uint8Array;

/** Positional parameters: `params[0]` binds `$1`. */
export type SqlParams = readonly SqlValue[];

/** Which engine sits behind a `Db`; repositories branch on it only where SQL cannot be shared. */
export type Dialect = 'sqlite' | 'postgres';

/** What a write reports back. */
export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  changes: number;
}

/**
 * What a held write (`runDeferred`) must change: exactly `changes` rows, or the transaction
 * fails with `otherwise()` and nothing of it commits.
 */
export interface ExpectedChanges {
  changes: number;
  otherwise: () => Error;
}

/** Options for `Db.transaction`. */
export interface TransactionOptions {
  /**
   * `false` trades durability for speed: the commit does not wait for an fsync (SQLite:
   * `synchronous=OFF` for that commit; PostgreSQL: `SET LOCAL synchronous_commit = off`).
   * A crash may lose the last such commits, never corrupt the database. Meant for state that
   * is cheap to lose, such as rate-limit buckets. Default `true`.
   */
  durable?: boolean;
}

/**
 * An open database, or a transaction on one (inside `transaction`, `tx` is itself a `Db` whose
 * statements all run in that transaction; calling `tx.transaction` nests with a savepoint).
 *
 * Inside a transaction callback use `tx`, never the outer `db`, for writes: on SQLite writes are
 * serialised, so awaiting an outer write from inside a transaction waits for itself.
 *
 * @example
 * const row = await db.get<{ id: string }>('SELECT id FROM patients WHERE id = $1', [id]);
 * await db.transaction(async (tx) => {
 *   await tx.run('UPDATE tokens SET used_at = $1 WHERE id = $2', [now, tokenId]);
 *   await tx.run('INSERT INTO events (id, data) VALUES ($1, $2)', [eventId, eventJson]);
 * });
 *
 * Stored documents (patients, appointments, claims, webhook endpoints) are changed only
 * through `modifyDoc` (server/repos/modify-doc.ts), which reads them under a row lock.
 */
export interface Db {
  readonly dialect: Dialect;
  /** First row, or `undefined` when there is none. */
  get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** Every row. */
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /** A statement run for its effect. */
  run(sql: string, params?: SqlParams): Promise<RunResult>;
  /** Runs `fn` in one transaction: commit when it resolves, roll back when it throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Closes the connection(s). On a transaction handle it is a no-op. */
  close(): Promise<void>;
}
