import { SqliteDb } from '../db/sqlite.js';
import type { StateDb } from '../db/sqlite-state.js';
import type { Db } from '../db/types.js';
import { volatileAll } from '../db/volatile.js';

export interface TakeTokenInput {
  /** Whose bucket, e.g. `key:key_01…` (never PHI). */
  bucketKey: string;
  /** Burst size and the `RateLimit-Limit` figure. */
  capacity: number;
  refillPerSecond: number;
  nowMs: number;
  /**
   * Tokens wanted (a whole number ≥ 1, default 1): fewer are granted when fewer whole tokens
   * are in the bucket, none when not even one is.
   */
  count?: number;
  /**
   * Unspent tokens of this process's earlier lease, given back to the bucket in the same
   * statement (never above its capacity); default 0.
   */
  returned?: number;
}

export interface TakeTokenResult {
  /** Whether at least one token was granted. */
  allowed: boolean;
  /** Tokens granted: `count` or fewer, 0 when refused. */
  granted: number;
  limit: number;
  /** The bucket's tokens after this take (fractional). */
  tokens: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again (`RateLimit-Reset`); at least 1 when refused. */
  resetSeconds: number;
  /** Seconds until one token is available (`Retry-After` on a 429); 0 when allowed. */
  retryAfterSeconds: number;
}

/** Most tokens one take may ask for (the `allowed` column, which records it, is 32-bit). */
const MAX_COUNT = 1_000_000_000;

// Token-bucket arithmetic in one statement, so concurrent requests from several processes
// each see and update the bucket atomically. In DO UPDATE every expression reads the row as
// it was before the update. A clock behind the stored one refills nothing. The `allowed`
// column records how many tokens the last take granted (0: refused), which RETURNING reads.
// Tokens given back ($6) join the refill, and the sum is capped at the capacity.
const ELAPSED = `(CASE WHEN CAST($4 AS BIGINT) > rate_limit_buckets.updated_at
  THEN CAST(CAST($4 AS BIGINT) - rate_limit_buckets.updated_at AS DOUBLE PRECISION) / 1000
  ELSE 0 END)`;
const FILLED = `(rate_limit_buckets.tokens + ${ELAPSED} * CAST($3 AS DOUBLE PRECISION)
  + CAST($6 AS DOUBLE PRECISION))`;
const REFILLED = `(CASE WHEN ${FILLED} > CAST($2 AS DOUBLE PRECISION)
  THEN CAST($2 AS DOUBLE PRECISION) ELSE ${FILLED} END)`;
const FULL = 'CAST($2 AS DOUBLE PRECISION)';
const COUNT = 'CAST($5 AS DOUBLE PRECISION)';

/** Tokens granted from a bucket holding `tokens`: min(count, floor(tokens)), 0 below 1. */
const granted = (tokens: string) => `(CASE WHEN ${tokens} >= 1
  THEN CAST(CASE WHEN ${tokens} >= ${COUNT} THEN ${COUNT} ELSE FLOOR(${tokens}) END AS INTEGER)
  ELSE 0 END)`;

const TAKE_SQL = `INSERT INTO rate_limit_buckets (bucket_key, tokens, allowed, updated_at)
  VALUES ($1, ${FULL} - ${granted(FULL)}, ${granted(FULL)}, CAST($4 AS BIGINT))
  ON CONFLICT (bucket_key) DO UPDATE SET
    tokens = ${REFILLED} - ${granted(REFILLED)},
    allowed = ${granted(REFILLED)},
    updated_at = CASE WHEN rate_limit_buckets.updated_at > excluded.updated_at
      THEN rate_limit_buckets.updated_at ELSE excluded.updated_at END
  RETURNING tokens, allowed`;

/**
 * Where the buckets live: on SQLite the state file beside the database (own write lock,
 * `synchronous=OFF`, see `SqliteStateDb`), so a request's bucket update never queues behind
 * or joins the main database's group commits; on PostgreSQL the database itself.
 */
function bucketDb(db: Db): StateDb | undefined {
  return db instanceof SqliteDb ? db.state : undefined;
}

/**
 * Takes `count` tokens (or as many whole ones as are left) from a bucket kept in the database,
 * so limits hold across restarts and across server processes. The commit skips the fsync: losing the last few bucket updates in
 * a crash is harmless, and a request must not pay for a disk flush. On SQLite the one
 * statement runs in autocommit on the state file; on PostgreSQL as one round trip on a
 * `synchronous_commit = off` session (`volatileAll`).
 */
export async function takeToken(db: Db, input: TakeTokenInput): Promise<TakeTokenResult> {
  const params = [
    input.bucketKey,
    input.capacity,
    input.refillPerSecond,
    Math.trunc(input.nowMs),
    Math.min(MAX_COUNT, Math.max(1, Math.floor(input.count ?? 1))),
    Math.min(MAX_COUNT, Math.max(0, Math.floor(input.returned ?? 0))),
  ] as const;
  const state = bucketDb(db);
  const row = state
    ? state.get<{ tokens: number; allowed: number }>(TAKE_SQL, params)
    : (await volatileAll<{ tokens: number; allowed: number }>(db, TAKE_SQL, params))[0];
  const tokens = Number(row?.tokens ?? 0);
  const granted = Number(row?.allowed ?? 0);
  return {
    ...bucketFigures(tokens, granted > 0, input.capacity, input.refillPerSecond),
    granted,
    tokens,
  };
}

/** The header figures for a bucket holding `tokens` after a request was `allowed` or not. */
export function bucketFigures(
  tokens: number,
  allowed: boolean,
  capacity: number,
  refillPerSecond: number,
): Omit<TakeTokenResult, 'granted' | 'tokens'> {
  const rate = refillPerSecond > 0 ? refillPerSecond : Number.MIN_VALUE;
  const untilFull = Math.max(0, Math.ceil((capacity - tokens) / rate));
  const untilOne = allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate));
  return {
    allowed,
    limit: capacity,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: allowed ? untilFull : Math.max(1, untilFull),
    retryAfterSeconds: untilOne,
  };
}

/** Forgets buckets untouched since `beforeMs` (they would be full again anyway). */
export async function purgeIdleBuckets(db: Db, beforeMs: number): Promise<number> {
  const sql = 'DELETE FROM rate_limit_buckets WHERE updated_at < $1';
  const state = bucketDb(db);
  return state ? state.run(sql, [beforeMs]).changes : (await db.run(sql, [beforeMs])).changes;
}
