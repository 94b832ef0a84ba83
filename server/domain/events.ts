/**
 * Emitting events (docs/design.md#webhooks): every change writes its event to the outbox inside the
 * change's own transaction, so an acknowledged change always has its event and its webhook
 * deliveries, and a rolled-back one has neither.
 */
import type { components, Readable } from '../../generated/types.js';
import { CURRENT_API_VERSION } from '../config.js';
import type { Db } from '../db/types.js';
import { newId } from '../ids.js';
import { insertEvent } from '../repos/events.js';
import { toSeconds } from '../repos/rows.js';

/** An event as the API returns it (schema `Event`). */
export type ApiEvent = Readable<components['schemas']['Event']>;

/** The event types of the spec (`EventType`). */
export type EventType = components['schemas']['EventType'];

/** The object an event is about, as the API returns it (`data.object`). */
export type EventObject = ApiEvent['data']['object'];

/**
 * What an event needs to know about its cause. A `HandlerContext` satisfies it; a background
 * job (delivery worker, claim simulator) passes `requestId: null, idempotencyKey: null`.
 */
export interface EventSource {
  readonly livemode: boolean;
  readonly requestId: string | null;
  readonly idempotencyKey: string | null;
  now(): number;
}

/** What changed. */
export interface EmitEventInput {
  type: EventType;
  /** The object after the change, exactly as the API returns it. */
  object: EventObject;
  /**
   * The previous values of the top-level fields that changed (`*.updated`,
   * `appointment.cancelled`, claim status moves); leave out for creations.
   */
  previousAttributes?: Record<string, unknown>;
}

/**
 * Writes the event row and one pending delivery per enabled endpoint of the mode subscribed to
 * its type, inside `tx` (call it from within `ctx.write`). Returns the event as stored, with
 * `pending_webhooks` set to the number of deliveries queued.
 *
 * @example
 * return ctx.write(async (tx) => {
 *   await insertPatient(tx, patient);
 *   await emitEvent(tx, ctx, { type: 'patient.created', object: patient });
 *   return { status: 200, body: patient };
 * });
 */
export async function emitEvent(
  tx: Db,
  source: EventSource,
  input: EmitEventInput,
): Promise<ApiEvent> {
  const nowMs = source.now();
  const data: ApiEvent['data'] =
    input.previousAttributes === undefined
      ? { object: input.object }
      : { object: input.object, previous_attributes: input.previousAttributes };
  const event: ApiEvent = {
    id: newId('evt', nowMs),
    object: 'event',
    type: input.type,
    api_version: CURRENT_API_VERSION,
    created: toSeconds(nowMs),
    livemode: source.livemode,
    data,
    request: { id: source.requestId, idempotency_key: source.idempotencyKey },
    pending_webhooks: 0,
  };
  return insertEvent(tx, event, nowMs);
}

/**
 * The top-level fields whose values differ between `before` and `after`, with their values in
 * `before` (an event's `previous_attributes`). Compared as JSON, so nested objects and arrays
 * count as changed only when their content differs.
 */
export function previousAttributes(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
      // A field the object did not have before was null as far as a client could tell.
      out[key] = before[key] ?? null;
    }
  }
  return out;
}
