/**
 * What the delivery worker reads about a batch of leased deliveries before sending any of it:
 * which endpoints are still enabled and in which API version they take their events, how many
 * deliveries of each event are still pending, and the keys the endpoints are bound to
 * (docs/design.md#webhooks).
 */
import { placeholderList } from '../db/placeholders.js';
import type { Db } from '../db/types.js';
import { type ApiKeyRecord, toKeyRecord } from '../keys/record.js';

/** The bound key of each endpoint that has one; `null` when the key row is gone. */
export type Bindings = Map<string, ApiKeyRecord | null>;

/** Where each leased delivery's endpoint stands, its bound key, and its event's pending count. */
export interface DeliveryFacts {
  enabled: Set<string>;
  /** Each enabled endpoint's `api_version`: its deliveries are rendered in it. */
  versions: Map<string, string>;
  pending: Map<string, number>;
  bindings: Bindings;
}

/** The facts of `leased` (at least one delivery), read in three statements. */
export async function readDeliveryFacts(
  db: Db,
  leased: ReadonlyArray<{ webhookId: string; eventId: string }>,
): Promise<DeliveryFacts> {
  const webhookIds = [...new Set(leased.map((d) => d.webhookId))];
  const eventIds = [...new Set(leased.map((d) => d.eventId))];
  const hooks = await db.all<{ id: string; data: string }>(
    `SELECT id, data FROM webhooks WHERE status = 'enabled' AND id IN (${placeholderList(webhookIds.length)})`,
    webhookIds,
  );
  const counts = await db.all<{ event_id: string; n: unknown }>(
    `SELECT event_id, COUNT(*) AS n FROM webhook_deliveries
      WHERE status = 'pending' AND event_id IN (${placeholderList(eventIds.length)}) GROUP BY event_id`,
    eventIds,
  );
  return {
    enabled: new Set(hooks.map((h) => h.id)),
    versions: new Map(hooks.map((h) => [h.id, String(JSON.parse(h.data).api_version)])),
    pending: new Map(counts.map((c) => [c.event_id, Number(c.n)])),
    bindings: await loadBindings(db, webhookIds),
  };
}

/** Loads the bound keys of `webhookIds` (endpoints bound to the account are left out). */
export async function loadBindings(db: Db, webhookIds: readonly string[]): Promise<Bindings> {
  const bindings: Bindings = new Map();
  if (webhookIds.length === 0) return bindings;
  const rows = await db.all<Record<string, unknown>>(
    `SELECT w.id AS webhook_id, k.* FROM webhooks w LEFT JOIN api_keys k ON k.id = w.bound_key_id
      WHERE w.bound_key_id IS NOT NULL AND w.id IN (${placeholderList(webhookIds.length)})`,
    webhookIds,
  );
  for (const row of rows) {
    bindings.set(String(row.webhook_id), row.kind === null ? null : toKeyRecord(row));
  }
  return bindings;
}
