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
import type { EventType } from '../resources/resource.js';
import { appointmentOut, type StoredAppointment } from './appointment-times.js';
import { storedTimeOut } from './date-time.js';

/** An event as the API returns it (schema `Event`). */
export type ApiEvent = Readable<components['schemas']['Event']>;

/** The object an event is about, as stored (an appointment's times in unix seconds). */
export type StoredEventObject =
  | Exclude<ApiEvent['data']['object'], { object: 'appointment' }>
  | StoredAppointment;

/** An event as stored in the outbox: `data.object` and `previous_attributes` as stored. */
export type StoredEvent = Omit<ApiEvent, 'data'> & {
  data: { object: StoredEventObject; previous_attributes?: Record<string, unknown> };
};

/** The object an event is about, as stored (`data.object`; `eventOut` renders it). */
export type EventObject = StoredEventObject;

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
  /** The object after the change, as stored (rendered for the API by `eventOut`). */
  object: StoredEventObject;
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
 *   await insertRecord(PATIENT, tx, patient);
 *   await emitEvent(tx, ctx, { type: 'patient.created', object: patient });
 *   return { status: 200, body: patient };
 * });
 */
export async function emitEvent(
  tx: Db,
  source: EventSource,
  input: EmitEventInput,
): Promise<StoredEvent> {
  const nowMs = source.now();
  const data: StoredEvent['data'] =
    input.previousAttributes === undefined
      ? { object: input.object }
      : { object: input.object, previous_attributes: input.previousAttributes };
  const event: StoredEvent = {
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
 *
 * `updated` is carried whenever anything else changed, even when the change fell in the same
 * second as the previous one and so left `updated` equal: otherwise an event's content would
 * depend on the clock (and differed between two databases serving the same requests a moment
 * apart, issue 31). An empty result still means nothing changed.
 */
export function previousAttributes(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const differs = (key: string) => JSON.stringify(before[key]) !== JSON.stringify(after[key]);
  const changed = keys.filter((key) => key !== 'updated' && differs(key));
  if (changed.length === 0 && !differs('updated')) return {};
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    // A field the object did not have before was null as far as a client could tell.
    if (key === 'updated' ? 'updated' in before : changed.includes(key))
      out[key] = before[key] ?? null;
  }
  return out;
}

/**
 * A stored event as the latest version returns it: an appointment's times (in `data.object`
 * and `previous_attributes`) become date-times, and `api_version` names the latest version.
 * Events of other objects are stored in their API shape already.
 */
export function eventOut(stored: StoredEvent): ApiEvent {
  const { object, previous_attributes: previous } = stored.data;
  if (object.object !== 'appointment') {
    return { ...stored, api_version: CURRENT_API_VERSION } as ApiEvent;
  }
  const data: ApiEvent['data'] = { object: appointmentOut(object) };
  if (previous !== undefined) {
    const times: Record<string, unknown> = { ...previous };
    for (const field of ['start', 'end'] as const) {
      if (typeof times[field] === 'number') times[field] = storedTimeOut(times[field] as number);
    }
    data.previous_attributes = times;
  }
  return { ...stored, api_version: CURRENT_API_VERSION, data };
}
