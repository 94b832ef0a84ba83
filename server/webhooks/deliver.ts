/**
 * One leased delivery, sent or refused and recorded (spec: "Delivery"): an endpoint disabled
 * since the delivery was queued gives it up unsent; the endpoint's bound key is checked
 * (`key-binding.ts`); the event is rendered in the endpoint's API version; the attempt's
 * outcome is settled with its retry time from the schedule, and the endpoint is disabled when
 * the schedule is spent (`disable-endpoint.ts`).
 */
import type { Db } from '../db/types.js';
import type { DeliveryFacts } from '../repos/delivery-facts.js';
import type { DeliveryAttempt, LeasedDelivery } from '../repos/webhook-deliveries.js';
import { versions } from '../versioning/index.js';
import { renderEventJson } from '../versioning/render-event.js';
import { type AttemptDeps, attemptDelivery, deliveryBody } from './attempt.js';
import { settleFinalFailure } from './disable-endpoint.js';
import { bindingVerdict } from './key-binding.js';
import { nextRetryAt, type RetrySchedule } from './schedule.js';
import type { SettleQueue } from './settle-queue.js';

/** What delivering needs from the worker. */
export interface DeliverContext {
  db: Db;
  workerId: string;
  settler: SettleQueue;
  schedule: RetrySchedule;
  clock: () => number;
  random: () => number;
  onError: (message: string, err: unknown) => void;
  attempt: AttemptDeps;
}

/** The event type of a stored event's JSON text. */
function eventTypeOf(eventJson: string): string {
  return String((JSON.parse(eventJson) as { type?: unknown }).type ?? '');
}

/** An attempt that was never sent, with the reason as its error. */
function unsent(startedAt: number, error: string): DeliveryAttempt {
  return { startedAt, durationMs: 0, statusCode: null, error, succeeded: false };
}

/**
 * Sends (or refuses) one delivery and records it. `attempted` is called as soon as nothing
 * more goes to the receiver, before the record is written: the endpoint's slot is about
 * its receiver, and waiting for our own commit would cut one endpoint's throughput to
 * cap ÷ commit time.
 */
export async function deliver(
  ctx: DeliverContext,
  delivery: LeasedDelivery,
  facts: DeliveryFacts,
  attempted: () => void,
): Promise<void> {
  const { clock, workerId } = ctx;
  const settle = (attempt: DeliveryAttempt, retryAt: number | null) =>
    ctx.settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt });
  const finalFailure = (attempt: DeliveryAttempt) =>
    settleFinalFailure(
      ctx.db,
      { deliveryId: delivery.id, workerId, attempt, retryAt: null },
      delivery.webhookId,
      clock,
    );
  // When a failed attempt is tried again (null: the schedule gives it up), read at the failure.
  const nextRetry = () =>
    nextRetryAt(ctx.schedule, delivery.livemode, delivery.attempts + 1, clock(), ctx.random);
  if (!facts.enabled.has(delivery.webhookId)) {
    attempted();
    // Disabled (by its owner) since the delivery was queued: give it up without sending.
    await settle(unsent(clock(), 'endpoint_disabled'), null);
    return;
  }
  if (facts.bindings.has(delivery.webhookId)) {
    const type = eventTypeOf(delivery.eventJson);
    const verdict = bindingVerdict(facts.bindings, delivery.webhookId, type, clock());
    if (verdict !== 'send') attempted();
    if (verdict === 'key_revoked') {
      // The key the subscription stood on is gone: nothing more goes out until a key that
      // may read the families re-enables the endpoint.
      await finalFailure(unsent(clock(), 'key_revoked'));
      return;
    }
    if (verdict === 'scope_missing') {
      await settle(unsent(clock(), 'scope_missing'), null);
      return;
    }
  }
  let rendered: string;
  try {
    rendered = renderEventJson(
      versions,
      delivery.eventJson,
      facts.versions.get(delivery.webhookId),
    );
  } catch (err) {
    // Stored data this build cannot render: an attempt that failed on our side, so the
    // schedule retries it (a fixed build may render it) and finally gives it up, instead of
    // the lease running out and the delivery coming back forever with no attempt recorded.
    attempted();
    ctx.onError('webhook event could not be rendered', err);
    const attempt = unsent(clock(), 'render_failed');
    // Given up without disabling the endpoint: its receiver did nothing wrong.
    await settle(attempt, nextRetry());
    return;
  }
  const body = deliveryBody(rendered, facts.pending.get(delivery.eventId));
  const attempt = await attemptDelivery(delivery, body, ctx.attempt);
  attempted();
  if (attempt.succeeded) {
    await settle(attempt, null);
    return;
  }
  const retryAt = nextRetry();
  if (retryAt === null) await finalFailure(attempt);
  else await settle(attempt, retryAt);
}
