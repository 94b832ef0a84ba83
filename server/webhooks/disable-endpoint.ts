/**
 * Disabling an endpoint whose delivery exhausted its retries (spec: "Delivery"): its status
 * becomes `disabled`, its other pending deliveries are given up, and a `webhook.disabled`
 * event goes to the mode's other enabled endpoints — all in the caller's transaction.
 */
import type { Db } from '../db/types.js';
import { emitEvent } from '../domain/events.js';
import { modifyRecord } from '../repos/records.js';
import { toSeconds } from '../repos/rows.js';
import {
  failPendingDeliveries,
  type Settlement,
  settleDelivery,
} from '../repos/webhook-deliveries.js';
import { lockWebhook } from '../repos/webhooks.js';
import { WEBHOOK } from '../resources/webhook.js';

/**
 * Records a delivery's last attempt (`retryAt: null`) and disables its endpoint, in one
 * transaction. The endpoint's row is locked before the delivery's: deleting an endpoint takes
 * its row and then its deliveries, and the reverse order here let PostgreSQL abort one side
 * with a deadlock (40P01), answering the DELETE with a 500.
 */
export async function settleFinalFailure(
  db: Db,
  settlement: Settlement,
  webhookId: string,
  now: () => number,
): Promise<void> {
  await db.transaction(async (tx) => {
    // Gone (deleted meanwhile): its deliveries went with it, so there is nothing to settle.
    if ((await lockWebhook(tx, webhookId)) === undefined) return;
    if (await settleDelivery(tx, settlement)) await disableEndpoint(tx, webhookId, now());
  });
}

/**
 * Disables `webhookId` if it is still enabled and emits `webhook.disabled`; returns whether it
 * did. The status is read under the row's lock (`modifyRecord`), so when several deliveries
 * of one endpoint run out at once (or several workers see them), exactly one of them disables
 * it and emits the event, and a concurrent API update of the endpoint is kept, not undone.
 */
export async function disableEndpoint(tx: Db, webhookId: string, nowMs: number): Promise<boolean> {
  // Locked first: its deliveries are changed below (see `settleFinalFailure`).
  const livemode = await lockWebhook(tx, webhookId);
  if (livemode === undefined) return false;
  const done = await modifyRecord(WEBHOOK, tx, webhookId, livemode, (current) =>
    current.status === 'enabled'
      ? { ...current, status: 'disabled' as const, updated: toSeconds(nowMs) }
      : undefined,
  );
  const updated = done?.change;
  if (updated === undefined) return false;
  await failPendingDeliveries(tx, webhookId, nowMs);
  await emitEvent(
    tx,
    systemSource(livemode, () => nowMs),
    {
      type: 'webhook.disabled',
      object: updated,
    },
  );
  return true;
}

/** The event source of background work: no request caused it (`request` holds nulls). */
export function systemSource(livemode: boolean, now: () => number) {
  return { livemode, requestId: null, idempotencyKey: null, now };
}
