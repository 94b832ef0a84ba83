import type { Db } from '../db/types.js';
import { newId } from '../ids.js';

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
}

/**
 * Leases up to `limit` due deliveries to `workerId`. On PostgreSQL, `FOR UPDATE SKIP LOCKED`
 * lets several processes lease at once without waiting on or taking each other's rows; on
 * SQLite the single UPDATE is atomic by itself. A lease that expires (worker died) makes the
 * delivery due again.
 */
export async function leaseDueDeliveries(db: Db, options: LeaseOptions): Promise<LeasedDelivery[]> {
  const lockRows = db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  return db.transaction(async (tx) => {
    const leased = await tx.all<{ id: string }>(
      `UPDATE webhook_deliveries SET locked_by = $1, locked_until = $2, updated_at = $3
        WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending'
          AND next_attempt_at <= $3 AND (locked_until IS NULL OR locked_until < $3)
          ORDER BY next_attempt_at LIMIT $4${lockRows})
        RETURNING id`,
      [options.workerId, options.nowMs + options.leaseMs, options.nowMs, options.limit],
    );
    const out: LeasedDelivery[] = [];
    for (const { id } of leased) {
      const row = await tx.get<Record<string, unknown>>(
        `SELECT d.id, d.event_id, d.webhook_id, d.livemode, d.attempts, w.url, w.secret, e.data
          FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          JOIN events e ON e.id = d.event_id WHERE d.id = $1`,
        [id],
      );
      if (!row) continue;
      out.push({
        id: String(row.id),
        eventId: String(row.event_id),
        webhookId: String(row.webhook_id),
        livemode: Number(row.livemode) === 1,
        attempts: Number(row.attempts),
        url: String(row.url),
        secret: String(row.secret),
        eventJson: String(row.data),
      });
    }
    return out;
  });
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

/**
 * Records an attempt and settles the delivery: `succeeded`; or, when it failed, `pending`
 * again at `retryAt` (ms), or `failed` for good when `retryAt` is null. Only the worker
 * holding the lease may settle it; returns false when the lease was lost.
 */
export async function settleDelivery(
  db: Db,
  input: { deliveryId: string; workerId: string; attempt: DeliveryAttempt; retryAt: number | null },
): Promise<boolean> {
  const { attempt } = input;
  const status = attempt.succeeded ? 'succeeded' : input.retryAt === null ? 'failed' : 'pending';
  return db.transaction(async (tx) => {
    const updated = await tx.run(
      `UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1, next_attempt_at = $2,
        locked_by = NULL, locked_until = NULL, last_status_code = $3, last_error = $4,
        updated_at = $5 WHERE id = $6 AND locked_by = $7`,
      [
        status,
        status === 'pending' ? input.retryAt : null,
        attempt.statusCode,
        attempt.error,
        attempt.startedAt + attempt.durationMs,
        input.deliveryId,
        input.workerId,
      ],
    );
    if (updated.changes === 0) return false;
    const row = await tx.get<{ attempts: number }>(
      'SELECT attempts FROM webhook_deliveries WHERE id = $1',
      [input.deliveryId],
    );
    await tx.run(
      `INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt, started_at, duration_ms,
        status_code, error, succeeded) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        newId('whda', attempt.startedAt),
        input.deliveryId,
        row?.attempts ?? 0,
        attempt.startedAt,
        attempt.durationMs,
        attempt.statusCode,
        attempt.error,
        attempt.succeeded,
      ],
    );
    return true;
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
