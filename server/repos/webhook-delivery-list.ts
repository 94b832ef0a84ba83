/**
 * What an endpoint's owner may see of its deliveries: one summary per event sent to it, with
 * every attempt's time, latency, status code and error class — never a response body. Served by
 * `GET /v1/webhooks/{id}/deliveries` (listWebhookDeliveries).
 */
import type { components } from '../../generated/types.js';
import { placeholderList } from '../db/placeholders.js';
import type { Db } from '../db/types.js';
import { type ListParams, type Page, paginate } from './pagination.js';
import { bool, numOrNull, toSeconds } from './rows.js';

/** One attempt as shown to the endpoint's owner. */
export interface WebhookDeliveryAttempt {
  attempt: number;
  /** Unix seconds the attempt started. */
  created: number;
  duration_ms: number;
  /** The receiver's HTTP status, or null when none came back. */
  status_code: number | null;
  /** `timeout`, `connection_refused`, `url_refused`, … or null when a status came back. */
  error: string | null;
  succeeded: boolean;
}

/** One event's delivery to one endpoint. */
export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  livemode: boolean;
  webhook: string;
  event: string;
  event_type: components['schemas']['EventType'];
  created: number;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  /** Unix seconds of the next try while `pending`, else null. */
  next_attempt: number | null;
  attempts: WebhookDeliveryAttempt[];
}

export interface DeliveryListParams extends ListParams {
  webhookId: string;
  livemode: boolean;
}

/** An endpoint's deliveries, newest first, each with its attempts oldest first. */
export async function listWebhookDeliveries(
  db: Db,
  params: DeliveryListParams,
): Promise<Page<WebhookDelivery>> {
  const page = await paginate(db, {
    from: 'webhook_deliveries d JOIN events e ON e.id = d.event_id',
    idColumn: 'd.id',
    createdColumn: '(d.created_at / 1000)',
    select: `d.id, d.livemode, d.webhook_id, d.event_id, e.type, d.created_at, d.status,
      d.attempts, d.next_attempt_at`,
    filters: [
      (p) => `d.webhook_id = ${p.add(params.webhookId)}`,
      (p) => `d.livemode = ${p.add(params.livemode)}`,
    ],
    list: params,
    map: (row): WebhookDelivery => ({
      id: String(row.id),
      object: 'webhook_delivery',
      livemode: bool(row.livemode),
      webhook: String(row.webhook_id),
      event: String(row.event_id),
      event_type: String(row.type) as WebhookDelivery['event_type'],
      created: toSeconds(Number(row.created_at)),
      status: String(row.status) as WebhookDelivery['status'],
      attempt_count: Number(row.attempts),
      next_attempt:
        row.status === 'pending' && row.next_attempt_at !== null
          ? Math.ceil(Number(row.next_attempt_at) / 1000)
          : null,
      attempts: [],
    }),
  });
  if (page.data.length === 0) return page;
  const ids = page.data.map((d) => d.id);
  const rows = await db.all<Record<string, unknown>>(
    `SELECT delivery_id, attempt, started_at, duration_ms, status_code, error, succeeded
      FROM webhook_delivery_attempts WHERE delivery_id IN (${placeholderList(ids.length)})
      ORDER BY delivery_id, attempt`,
    ids,
  );
  const byId = new Map(page.data.map((d) => [d.id, d]));
  for (const row of rows) {
    byId.get(String(row.delivery_id))?.attempts.push({
      attempt: Number(row.attempt),
      created: toSeconds(Number(row.started_at)),
      duration_ms: Number(row.duration_ms),
      status_code: numOrNull(row.status_code),
      error: row.error === null ? null : String(row.error),
      succeeded: bool(row.succeeded),
    });
  }
  return page;
}
