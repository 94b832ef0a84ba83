import { placeholderList } from '../db/placeholders.js';
import type { Db, SqlValue } from '../db/types.js';
import { newId } from '../ids.js';
import { sqlLimit } from '../sql/params.js';
import { meetSchemaText } from './stored-shape.js';

/** A delivery a worker has leased: what to send, where, and with which secret. */
export interface LeasedDelivery {
  id: string;
  eventId: string;
  webhookId: string;
  livemode: boolean;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret: string;
  /** The event as JSON text, exactly as stored (the body to sign and send). */
  eventJson: string;
}

export interface LeaseOptions {
  workerId: string;
  nowMs: number;
  /** How long the lease lasts; an unfinished delivery is retried by anyone after it. */
  leaseMs: number;
  limit: number;
  /** Only this mode's deliveries (the worker keeps separate slots per mode). */
  livemode?: boolean;
  /** Leave these endpoints' deliveries alone (they are at the worker's per-endpoint cap). */
  excludeWebhookIds?: readonly string[];
}

/** The columns a lease hands out; `url`, `secret` and `data` come from the joined rows. */
const LEASED_COLUMNS =
  'd.id, d.event_id, d.webhook_id, d.livemode, d.attempts, w.url, w.secret, e.data';

/**
 * Leases up to `limit` due deliveries to `workerId`. On PostgreSQL this is one statement
 * (atomic by itself, so no transaction is opened): `FOR UPDATE SKIP LOCKED` lets several
 * processes lease at once without waiting on or taking each other's rows, and the leased rows
 * come back joined with their endpoint and event. On SQLite (no UPDATE inside a CTE) the
 * single UPDATE is atomic by itself and one SELECT reads what it leased, in one transaction.
 * A lease that expires (worker died) makes the delivery due again.
 */
export async function leaseDueDeliveries(db: Db, options: LeaseOptions): Promise<LeasedDelivery[]> {
  const params: SqlValue[] = [options.workerId, options.nowMs + options.leaseMs, options.nowMs];
  let only = '';
  if (options.livemode !== undefined) {
    params.push(options.livemode);
    only += ` AND livemode = $${params.length}`;
  }
  const excluded = options.excludeWebhookIds ?? [];
  if (excluded.length > 0) {
    const first = params.length + 1;
    params.push(...excluded);
    only += ` AND webhook_id NOT IN (${placeholderList(excluded.length, first)})`;
  }
  const update = (lockRows: string, returning: string) =>
    `UPDATE webhook_deliveries SET locked_by = $1, locked_until = $2, updated_at = $3
      WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending'
        AND next_attempt_at <= $3 AND (locked_until IS NULL OR locked_until < $3)${only}
        ORDER BY next_attempt_at LIMIT ${sqlLimit(options.limit)}${lockRows})
      RETURNING ${returning}`;
  if (db.dialect === 'postgres') {
    const rows = await db.all<Record<string, unknown>>(
      `WITH d AS (${update(' FOR UPDATE SKIP LOCKED', '*')})
        SELECT ${LEASED_COLUMNS} FROM d JOIN webhooks w ON w.id = d.webhook_id
          JOIN events e ON e.id = d.event_id ORDER BY d.next_attempt_at, d.id`,
      params,
    );
    return rows.map(toLeased);
  }
  return db.transaction(async (tx) => {
    const leased = await tx.all<{ id: string }>(update('', 'id'), params);
    if (leased.length === 0) return [];
    const rows = await tx.all<Record<string, unknown>>(
      `SELECT ${LEASED_COLUMNS} FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        JOIN events e ON e.id = d.event_id WHERE d.id IN (${placeholderList(leased.length)})
        ORDER BY d.next_attempt_at, d.id`,
      leased.map((row) => row.id),
    );
    return rows.map(toLeased);
  });
}

function toLeased(row: Record<string, unknown>): LeasedDelivery {
  return {
    id: String(row.id),
    eventId: String(row.event_id),
    webhookId: String(row.webhook_id),
    livemode: Number(row.livemode) === 1,
    attempts: Number(row.attempts),
    url: String(row.url),
    secret: String(row.secret),
    eventJson: meetSchemaText(String(row.data)),
  };
}

/**
 * Hands leased deliveries back unattempted (due again at once for any worker); only the
 * worker holding a lease releases it. The worker uses it for deliveries past its per-endpoint
 * cap that came in one batch.
 */
export async function releaseLeases(
  db: Db,
  workerId: string,
  deliveryIds: readonly string[],
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await db.run(
    `UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL
      WHERE locked_by = $1 AND status = 'pending' AND id IN (${placeholderList(deliveryIds.length, 2)})`,
    [workerId, ...deliveryIds],
  );
}

/**
 * Frees every lease of a pending delivery, whoever holds it. Only for SQLite at worker start:
 * one process delivers there, so any lease still held belongs to a process that died, and its
 * deliveries are due now rather than when the lease runs out.
 */
export async function releaseOrphanedLeases(db: Db): Promise<void> {
  await db.run(
    `UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL
      WHERE status = 'pending' AND locked_by IS NOT NULL`,
  );
}

/** The outcome of one HTTP attempt. */
export interface DeliveryAttempt {
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  /** A short reason without response bodies (`timeout`, `connection refused`, ...). */
  error: string | null;
  succeeded: boolean;
}

/** One attempt to record: by whom, and when to retry (null: no retry). */
export interface Settlement {
  deliveryId: string;
  workerId: string;
  attempt: DeliveryAttempt;
  retryAt: number | null;
}

/**
 * Records an attempt and settles the delivery: `succeeded`; or, when it failed, `pending`
 * again at `retryAt` (ms), or `failed` for good when `retryAt` is null. Only the worker
 * holding the lease may settle it; returns false when the lease was lost.
 */
export async function settleDelivery(db: Db, settlement: Settlement): Promise<boolean> {
  return (await settleDeliveries(db, [settlement]))[0] ?? false;
}

/** A settlement as the row values it writes. */
interface SettleRow {
  id: string;
  worker: string;
  status: 'succeeded' | 'failed' | 'pending';
  next_at: number | null;
  code: number | null;
  err: string | null;
  updated: number;
  attempt_id: string;
  started: number;
  duration: number;
  succeeded: 0 | 1;
}

function settleRow({ deliveryId, workerId, attempt, retryAt }: Settlement): SettleRow {
  const status = attempt.succeeded ? 'succeeded' : retryAt === null ? 'failed' : 'pending';
  return {
    id: deliveryId,
    worker: workerId,
    status,
    next_at: status === 'pending' ? retryAt : null,
    code: attempt.statusCode,
    err: attempt.error,
    updated: attempt.startedAt + attempt.durationMs,
    attempt_id: newId('whda', attempt.startedAt),
    started: attempt.startedAt,
    duration: attempt.durationMs,
    succeeded: attempt.succeeded ? 1 : 0,
  };
}

/**
 * Settles a batch (see `settleDelivery`); resolves, per settlement, whether its lease was
 * still held. All or nothing: on PostgreSQL one statement (atomic by itself) updates every
 * delivery still leased to its worker and inserts its attempt row numbered with the new
 * `attempts`; on SQLite one transaction runs an UPDATE ... RETURNING and an INSERT per row.
 */
export async function settleDeliveries(
  db: Db,
  settlements: readonly Settlement[],
): Promise<boolean[]> {
  if (settlements.length === 0) return [];
  const rows = settlements.map(settleRow);
  if (db.dialect === 'postgres') return settlePostgres(db, rows);
  return db.transaction(async (tx) => {
    const out: boolean[] = [];
    for (const row of rows) {
      const updated = await tx.get<{ attempts: number }>(
        `UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1, next_attempt_at = $2,
          locked_by = NULL, locked_until = NULL, last_status_code = $3, last_error = $4,
          updated_at = $5 WHERE id = $6 AND locked_by = $7 RETURNING attempts`,
        [row.status, row.next_at, row.code, row.err, row.updated, row.id, row.worker],
      );
      if (updated) {
        await tx.run(
          `INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, started_at,
            duration_ms, status_code, error, succeeded) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            row.attempt_id,
            row.id,
            Number(updated.attempts),
            row.started,
            row.duration,
            row.code,
            row.err,
            row.succeeded,
          ],
        );
      }
      out.push(updated !== undefined);
    }
    return out;
  });
}

/**
 * The whole batch as one JSON parameter: the UPDATE's RETURNING feeds the INSERT of the
 * attempt rows, whose RETURNING names the deliveries that were still ours.
 */
const SETTLE_POSTGRES = `WITH v AS MATERIALIZED (
    SELECT * FROM json_to_recordset($1::json) AS x(id text, worker text, status text,
      next_at bigint, code int, err text, updated bigint, attempt_id text, started bigint,
      duration int, succeeded int)
  ), s AS (
    UPDATE webhook_deliveries d SET status = v.status, attempts = d.attempts + 1,
      next_attempt_at = v.next_at, locked_by = NULL, locked_until = NULL,
      last_status_code = v.code, last_error = v.err, updated_at = v.updated
    FROM v WHERE d.id = v.id AND d.locked_by = v.worker
    RETURNING d.id, d.attempts
  )
  INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, started_at, duration_ms,
    status_code, error, succeeded)
  SELECT v.attempt_id, s.id, s.attempts, v.started, v.duration, v.code, v.err, v.succeeded
    FROM s JOIN v ON v.id = s.id
  RETURNING delivery_id`;

async function settlePostgres(db: Db, rows: readonly SettleRow[]): Promise<boolean[]> {
  // A delivery twice in one statement would be updated once but get two attempt rows; such
  // repeats (never made by the worker) go in a later statement of the same transaction.
  const seen = new Set<string>();
  const first: number[] = [];
  const repeats: number[] = [];
  for (const [i, row] of rows.entries()) {
    if (seen.has(row.id)) repeats.push(i);
    else {
      seen.add(row.id);
      first.push(i);
    }
  }
  if (repeats.length === 0) {
    const settled = await db.all<{ delivery_id: string }>(SETTLE_POSTGRES, [JSON.stringify(rows)]);
    const ours = new Set(settled.map((row) => row.delivery_id));
    return rows.map((row) => ours.has(row.id));
  }
  return db.transaction(async (tx) => {
    const out: boolean[] = [];
    for (const part of [first, repeats]) {
      // `part` holds indexes of `rows` (built above), so the filter drops nothing.
      const results = await settlePostgres(
        tx,
        part.map((i) => rows[i]).filter((row) => row !== undefined),
      );
      for (const [j, i] of part.entries()) out[i] = results[j] ?? false;
    }
    return out;
  });
}

/** Gives up every pending delivery of an endpoint (used when it is disabled). */
export async function failPendingDeliveries(
  tx: Db,
  webhookId: string,
  nowMs: number,
): Promise<number> {
  const result = await tx.run(
    `UPDATE webhook_deliveries SET status = 'failed', locked_by = NULL, locked_until = NULL,
      updated_at = $1 WHERE webhook_id = $2 AND status = 'pending'`,
    [nowMs, webhookId],
  );
  return result.changes;
}

/** Attempts of one delivery, oldest first (for tests and support tools). */
export function deliveryAttempts(
  db: Db,
  deliveryId: string,
): Promise<
  Array<{ attempt: number; status_code: number | null; succeeded: number; error: string | null }>
> {
  return db.all(
    `SELECT attempt, status_code, succeeded, error FROM webhook_delivery_attempts
      WHERE delivery_id = $1 ORDER BY attempt`,
    [deliveryId],
  );
}
