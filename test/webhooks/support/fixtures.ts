/** Rows the webhook tests need, written through the same repositories and event path as the API. */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../../server/db/types.js';
import { type EventObject, emitEvent } from '../../../server/domain/events.js';
import { newId } from '../../../server/ids.js';
import { insertWebhook } from '../../../server/repos/webhooks.js';
import type { EventType } from '../../../server/resources/resource.js';
import type { StoredWebhook } from '../../../server/resources/webhook.js';

export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/** Stores an enabled endpoint and returns its id and secret. */
export async function addWebhook(
  db: Db,
  url: string,
  options: { livemode?: boolean; events?: string[]; status?: string } = {},
): Promise<{ id: string; secret: string }> {
  const secret = newSecret();
  const now = Math.floor(Date.now() / 1000);
  const doc = {
    id: newId('wh'),
    object: 'webhook',
    livemode: options.livemode ?? false,
    created: now,
    updated: now,
    url,
    enabled_events: options.events ?? ['*'],
    description: null,
    status: options.status ?? 'enabled',
    api_version: '2026-11-01',
    metadata: {},
  };
  await db.transaction((tx) => insertWebhook(tx, doc as StoredWebhook, secret));
  return { id: doc.id, secret };
}

/** Commits a `patient.updated`-style event as a request would (same `emitEvent` path). */
export async function emit(
  db: Db,
  options: { livemode?: boolean; type?: EventType } = {},
): Promise<string> {
  const object = { id: newId('pat'), object: 'patient', livemode: options.livemode ?? false };
  const event = await db.transaction((tx) =>
    emitEvent(
      tx,
      {
        livemode: options.livemode ?? false,
        requestId: newId('req'),
        idempotencyKey: null,
        now: Date.now,
      },
      { type: options.type ?? 'patient.created', object: object as unknown as EventObject },
    ),
  );
  return event.id;
}

/** Delivery rows of an endpoint. */
export function deliveriesOf(
  db: Db,
  webhookId: string,
): Promise<Array<{ id: string; event_id: string; status: string; attempts: number }>> {
  return db.all(
    'SELECT id, event_id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1',
    [webhookId],
  );
}
