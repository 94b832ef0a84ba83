/**
 * One retention round: deletes idempotency records past their 24 h, tokens past their expiry
 * and rate-limit buckets idle longer than the setting, each through its repository's purge.
 *
 * On PostgreSQL, where several servers and workers share the database, a round runs inside a
 * transaction holding a transaction-scoped advisory lock keyed by the schema; a process that
 * finds the lock taken skips its round instead of waiting, so rounds never overlap and no two
 * processes purge at once. A round that follows another soon after deletes only what expired
 * in between: every row is deleted, and counted, by exactly one round. On SQLite one file has
 * one writer at a time, so the deletes need no lock (and the buckets live in the state file,
 * which a transaction on the main file would not reach).
 */
import type { Db } from '../db/types.js';
import { purgeExpiredIdempotency } from '../repos/idempotency.js';
import { purgeIdleBuckets } from '../repos/rate-limits.js';
import { purgeExpiredTokens } from '../repos/tokens.js';

/** How many rows a round deleted, per kind. */
export interface PurgeCounts {
  idempotency: number;
  tokens: number;
  buckets: number;
}

/** A round ran (with its counts), or was skipped because another process was running one. */
export type RoundResult = ({ ran: true } & PurgeCounts) | { ran: false };

/** The lock's key: per schema, so databases sharing one PostgreSQL do not block each other. */
export const RETENTION_LOCK_KEY_SQL = "hashtext('patient-care.retention.' || current_schema())";

async function purgeAll(db: Db, nowMs: number, bucketIdleMs: number): Promise<PurgeCounts> {
  return {
    idempotency: await purgeExpiredIdempotency(db, nowMs),
    tokens: await purgeExpiredTokens(db, Math.floor(nowMs / 1000)),
    buckets: await purgeIdleBuckets(db, nowMs - bucketIdleMs),
  };
}

/**
 * Runs one round at `nowMs`.
 * @example
 * const result = await runPurgeRound(db, { nowMs: Date.now(), bucketIdleMs: 3_600_000 });
 * if (result.ran) console.log(result.idempotency, result.tokens, result.buckets);
 */
export async function runPurgeRound(
  db: Db,
  options: { nowMs: number; bucketIdleMs: number },
): Promise<RoundResult> {
  if (db.dialect !== 'postgres') {
    return { ran: true, ...(await purgeAll(db, options.nowMs, options.bucketIdleMs)) };
  }
  return db.transaction(async (tx): Promise<RoundResult> => {
    const lock = await tx.get<{ acquired: boolean }>(
      `SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY_SQL}) AS acquired`,
    );
    if (lock?.acquired !== true) return { ran: false };
    return { ran: true, ...(await purgeAll(tx, options.nowMs, options.bucketIdleMs)) };
  });
}
