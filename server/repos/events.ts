import { runDeferred } from '../db/deferred.js';
import { placeholderList } from '../db/placeholders.js';
import type { Db } from '../db/types.js';
import { newId } from '../ids.js';
import { type Filter, type ListParams, type Page, paginate } from './pagination.js';
import { meetSchema } from './stored-shape.js';
import { subscribedWebhookIds } from './webhooks.js';

/**
 * Events are listed and retrievable for this long, then purged with their deliveries (the
 * spec: "kept 30 days"; docs/design.md#retention).
 */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 3600;

/** The fields of an event this repository reads; the rest is kept as given. */
export interface EventDoc {
  id: string;
  livemode: boolean;
  created: number;
  type: string;
  data: { object: { id?: string } & Record<string, unknown> };
  request?: { id: string | null; idempotency_key: string | null } | null;
  pending_webhooks?: number;
}

export interface EventListParams extends ListParams {
  livemode: boolean;
  type?: string;
  /**
   * Only events whose type starts with one of these (`claim.`); `undefined` = no such filter,
   * an empty list = no event.
   */
  typePrefixes?: readonly string[];
}

/**
 * Writes an event to the outbox and queues one delivery per subscribed, enabled endpoint of
 * its mode — all inside the caller's transaction, so a committed change always has its event
 * and its deliveries, and a rolled-back one has neither. Returns the event with
 * `pending_webhooks` set to the number of deliveries queued.
 */
export async function insertEvent<T extends EventDoc>(
  tx: Db,
  event: T,
  nowMs: number = Date.now(),
): Promise<T & { pending_webhooks: number }> {
  const webhookIds = await subscribedWebhookIds(tx, event.livemode, event.type);
  const stored = { ...event, pending_webhooks: webhookIds.length };
  // Deferred (PostgreSQL: sent with the transaction's other deferred writes); a delivery
  // below is an ordinary statement, so the event is sent before it.
  await runDeferred(
    tx,
    `INSERT INTO events (id, livemode, created, type, object_id, request_id, idempotency_key, data)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      event.id,
      event.livemode,
      event.created,
      event.type,
      event.data.object.id ?? null,
      event.request?.id ?? null,
      event.request?.idempotency_key ?? null,
      JSON.stringify(stored),
    ],
  );
  // Only while the endpoint exists: one being deleted concurrently was read above, and a
  // plain INSERT would wait for that delete and then fail its foreign key (a 500 for the
  // request raising the event). `FOR KEY SHARE` waits the same way, then finds no row.
  const keyShare = tx.dialect === 'postgres' ? ' FOR KEY SHARE' : '';
  for (const webhookId of webhookIds) {
    await tx.run(
      `INSERT INTO webhook_deliveries (id, event_id, webhook_id, livemode, status, attempts,
        next_attempt_at, created_at, updated_at)
        SELECT $1, $2, id, $4, 'pending', 0, $5, $5, $5 FROM webhooks WHERE id = $3${keyShare}`,
      [newId('whd', nowMs), event.id, webhookId, event.livemode, nowMs],
    );
  }
  return stored;
}

// `pending_webhooks` is live: the count of deliveries still pending, not the count at write.
const SELECT_EVENT = `e.data, (SELECT COUNT(*) FROM webhook_deliveries d
  WHERE d.event_id = e.id AND d.status = 'pending') AS pending`;

function toEvent<T>(row: Record<string, unknown>): T {
  const event = meetSchema(JSON.parse(String(row.data)) as T & { pending_webhooks?: number });
  event.pending_webhooks = Number(row.pending);
  return event;
}

/** The stored event, or `undefined`. */
export async function getEvent<T = EventDoc>(
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  const row = await db.get(
    `SELECT ${SELECT_EVENT} FROM events e WHERE e.id = $1 AND e.livemode = $2`,
    [id, livemode],
  );
  return row ? toEvent<T>(row) : undefined;
}

/**
 * Where the type starts with one of `prefixes`. Each is a range on the type column, `claim.` ≤
 * type < `claim/` ('/' follows '.'), portable and index-friendly.
 */
function typePrefixFilter(prefixes: readonly string[] | undefined): Filter {
  return (p) => {
    if (prefixes === undefined) return undefined;
    if (prefixes.length === 0) return '1 = 0';
    const ranges = prefixes.map(
      (prefix) => `(e.type >= ${p.add(prefix)} AND e.type < ${p.add(`${prefix.slice(0, -1)}/`)})`,
    );
    return `(${ranges.join(' OR ')})`;
  };
}

/** Events newest first, optionally of one type or of some type families. */
export function listEvents<T = EventDoc>(db: Db, params: EventListParams): Promise<Page<T>> {
  return paginate(db, {
    from: 'events e',
    idColumn: 'e.id',
    createdColumn: 'e.created',
    select: SELECT_EVENT,
    filters: [
      (p) => `e.livemode = ${p.add(params.livemode)}`,
      (p) => (params.type === undefined ? undefined : `e.type = ${p.add(params.type)}`),
      typePrefixFilter(params.typePrefixes),
    ],
    list: params,
    map: toEvent<T>,
  });
}

/** What one batch of `purgeEventsBatch` deleted. */
export interface PurgedEvents {
  events: number;
  deliveries: number;
}

/**
 * Deletes up to `limit` of the oldest events created before `beforeMs`, with their webhook
 * deliveries (and, by cascade, the deliveries' attempts), in the caller's transaction. The
 * batch is found as the first `limit` entries of the `events_created (created, id)` index and
 * deleted by primary key, so each batch costs the same however large the table. A range
 * condition instead (`created <= last`) let PostgreSQL's generic plan for the cached
 * statement choose a sequential scan: ~0.5 s a batch at 200,000 rows (bench/retention.ts).
 * Call it again until it deletes fewer than `limit`.
 */
export async function purgeEventsBatch(
  tx: Db,
  beforeMs: number,
  limit: number,
): Promise<PurgedEvents> {
  const rows = await tx.all<{ id: string }>(
    'SELECT id FROM events WHERE created < $1 ORDER BY created, id LIMIT $2',
    [Math.floor(beforeMs / 1000), limit],
  );
  if (rows.length === 0) return { events: 0, deliveries: 0 };
  const ids = rows.map((row) => row.id);
  const list = placeholderList(ids.length);
  // Deliveries first and counted (their attempts go by cascade).
  const deliveries = await tx.run(
    `DELETE FROM webhook_deliveries WHERE event_id IN (${list})`,
    ids,
  );
  const events = await tx.run(`DELETE FROM events WHERE id IN (${list})`, ids);
  return { events: events.changes, deliveries: deliveries.changes };
}
