/**
 * One retention round (docs/design.md#retention): deletes idempotency records past their 24 h,
 * tokens past their expiry, rate-limit buckets idle longer than the setting and ephemeral keys
 * a day past their expiry, each through its repository's purge; then events older than 30 days
 * with their webhook deliveries, in batches.
 *
 * On PostgreSQL, where several servers and workers share the database, the first part runs
 * inside a transaction holding a transaction-scoped advisory lock keyed by the schema; a
 * process that finds the lock taken skips its round instead of waiting, so rounds never
 * overlap and no two processes purge at once. A round that follows another soon after deletes
 * only what expired in between: every row is deleted, and counted, by exactly one round. On
 * SQLite one file has one writer at a time, so the deletes need no lock (and the buckets live
 * in the state file, which a transaction on the main file would not reach).
 *
 * Events can number millions (a full copy of a patient each), so they go `eventBatchSize` at a
 * time, each batch its own short transaction (taking the same lock on PostgreSQL, and giving
 * up the round's event purge if another process holds it), with a pause between batches as
 * long as the batch took, in which the service's own writes run: a purge of a million rows never holds the writer or row
 * locks for longer than one batch (bench/retention.ts measures POST latency during one).
 */
import type { Db } from '../db/types.js';
import { purgeExpiredEphemeralKeys } from '../keys/store.js';
import { EVENT_RETENTION_SECONDS, purgeEventsBatch } from '../repos/events.js';
import { purgeExpiredIdempotency } from '../repos/idempotency.js';
import { purgeIdleBuckets } from '../repos/rate-limits.js';
import { purgeExpiredTokens } from '../repos/tokens.js';

/** How many rows a round deleted, per kind. */
export interface PurgeCounts {
  idempotency: number;
  tokens: number;
  buckets: number;
  ephemeralKeys: number;
  events: number;
  deliveries: number;
}

/** A round ran (with its counts), or was skipped because another process was running one. */
export type RoundResult = ({ ran: true } & PurgeCounts) | { ran: false };

/** The lock's key: per schema, so databases sharing one PostgreSQL do not block each other. */
const RETENTION_LOCK_KEY_SQL = "hashtext('patient-care.retention.' || current_schema())";

/**
 * An expired ephemeral key is kept this long, so a browser session that comes back within a
 * day is told `api_key_expired` (get a new key) rather than `api_key_invalid`.
 */
export const EPHEMERAL_KEY_GRACE_SECONDS = 24 * 3600;

/**
 * Events per batch, and the least pause after each (the pause is at least the batch's own
 * time, so queued writes run between batches and the purge never takes more than half the
 * writer). Measured with bench/retention.ts (1,000,000 old events, bench/results/retention.md).
 */
export const EVENT_BATCH_SIZE = 500;
export const EVENT_BATCH_PAUSE_MS = 5;

export interface RoundOptions {
  nowMs: number;
  bucketIdleMs: number;
  /** Default `EVENT_BATCH_SIZE`. */
  eventBatchSize?: number;
  /** Default `EVENT_BATCH_PAUSE_MS`. */
  eventBatchPauseMs?: number;
  /** Stops the event purge between batches (the scheduler's `stop()`); the round returns. */
  signal?: AbortSignal;
}

type SmallCounts = Omit<PurgeCounts, 'events' | 'deliveries'>;

async function purgeSmall(db: Db, nowMs: number, bucketIdleMs: number): Promise<SmallCounts> {
  const nowSeconds = Math.floor(nowMs / 1000);
  return {
    idempotency: await purgeExpiredIdempotency(db, nowMs),
    tokens: await purgeExpiredTokens(db, nowSeconds),
    buckets: await purgeIdleBuckets(db, nowMs - bucketIdleMs),
    ephemeralKeys: await purgeExpiredEphemeralKeys(db, nowSeconds - EPHEMERAL_KEY_GRACE_SECONDS),
  };
}

/** Runs `fn` in a transaction holding the retention lock; undefined if another process has it. */
async function underLock<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T | undefined> {
  return db.transaction(async (tx) => {
    const lock = await tx.get<{ acquired: boolean }>(
      `SELECT pg_try_advisory_xact_lock(${RETENTION_LOCK_KEY_SQL}) AS acquired`,
    );
    return lock?.acquired === true ? fn(tx) : undefined;
  });
}

/** Events (and their deliveries) created before `nowMs` − 30 days, batch by batch. */
async function purgeOldEvents(
  db: Db,
  options: RoundOptions,
): Promise<{ events: number; deliveries: number }> {
  const beforeMs = options.nowMs - EVENT_RETENTION_SECONDS * 1000;
  const size = options.eventBatchSize ?? EVENT_BATCH_SIZE;
  const pauseMs = options.eventBatchPauseMs ?? EVENT_BATCH_PAUSE_MS;
  const total = { events: 0, deliveries: 0 };
  while (options.signal?.aborted !== true) {
    const started = performance.now();
    const batch =
      db.dialect === 'postgres'
        ? await underLock(db, (tx) => purgeEventsBatch(tx, beforeMs, size))
        : await db.transaction((tx) => purgeEventsBatch(tx, beforeMs, size));
    if (batch === undefined) break;
    total.events += batch.events;
    total.deliveries += batch.deliveries;
    if (batch.events < size) break;
    // At least as long as the batch took: the purge gets at most half of the writer (and, on
    // a small machine, of the CPU), however slow a batch is under load.
    const tookMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, Math.max(pauseMs, tookMs)));
  }
  return total;
}

/**
 * Runs one round at `nowMs`.
 * @example
 * const result = await runPurgeRound(db, { nowMs: Date.now(), bucketIdleMs: 3_600_000 });
 * if (result.ran) console.log(result.idempotency, result.events, result.deliveries);
 */
export async function runPurgeRound(db: Db, options: RoundOptions): Promise<RoundResult> {
  const small =
    db.dialect === 'postgres'
      ? await underLock(db, (tx) => purgeSmall(tx, options.nowMs, options.bucketIdleMs))
      : await purgeSmall(db, options.nowMs, options.bucketIdleMs);
  if (small === undefined) return { ran: false };
  return { ran: true, ...small, ...(await purgeOldEvents(db, options)) };
}
