/**
 * What an `updateAppointment` request does to a stored appointment: the state machine, the
 * reschedule rules, `cancelled_at`, the metadata merge and which event (if any) to emit. Pure, so
 * every rule of the Appointments tag is a given/want row in a table test.
 */
import type { components } from '../../generated/types.js';
import { ApiError } from '../errors.js';
import {
  type AppointmentStatus,
  assertMove,
  assertSpan,
  isReschedulable,
  isTerminal,
  needsTime,
} from './appointment-status.js';
import type { StoredAppointment, WithStoredTimes } from './appointment-times.js';
import { previousAttributes } from './events.js';
import { mergeMetadata } from './serialize.js';

/** An appointment as stored (times in unix seconds; `appointment-times.ts`). */
export type Appointment = StoredAppointment;

/** The body of `updateAppointment` (schema `AppointmentUpdateParams`), times in seconds. */
export type AppointmentUpdateParams = WithStoredTimes<
  components['schemas']['AppointmentUpdateParams']
>;

/** The outcome of an update. */
export interface AppointmentUpdatePlan {
  /** The appointment after the update (the same object when nothing changed). */
  appointment: Appointment;
  /** The old values of the top-level fields that changed, `updated` included. */
  previous: Record<string, unknown>;
  /** The event to emit; `null` when nothing changed. */
  eventType: 'appointment.updated' | 'appointment.cancelled' | null;
}

/** Fields copied from the request as they are (`null` clears the nullable ones). */
const PLAIN_FIELDS = ['practitioner', 'appointment_type', 'reason', 'location'] as const;

function invalid(param: string, message: string): ApiError {
  return new ApiError('parameter_invalid', { param, message });
}

/** The request's fields a terminal appointment refuses (all but `status` and `metadata`). */
function refusedOnTerminal(params: AppointmentUpdateParams): string | undefined {
  return Object.keys(params).find(
    (key) =>
      key !== 'status' && key !== 'metadata' && params[key as keyof typeof params] !== undefined,
  );
}

/**
 * Applies `params` to `current` at `nowSeconds`, enforcing the Appointments tag's rules:
 * - `status` moves along the state machine (`status_transition_invalid`); the current status
 *   is not a move;
 * - on a terminal appointment only `metadata` and the move to `entered_in_error` are accepted;
 * - `start`/`end` change only while `proposed`, `pending` or `booked`, still in pairs with
 *   `end > start`; `pending` and `booked` need a time;
 * - `cancellation_reason` only with the move to `cancelled`, which sets `cancelled_at`.
 *
 * @example
 * planAppointmentUpdate(booked, { status: 'cancelled' }, now).eventType // 'appointment.cancelled'
 */
export function planAppointmentUpdate(
  current: Appointment,
  params: AppointmentUpdateParams,
  nowSeconds: number,
): AppointmentUpdatePlan {
  const from = current.status as AppointmentStatus;
  const to = (params.status ?? from) as AppointmentStatus;
  assertMove(from, to);

  if (isTerminal(from)) {
    const refused = refusedOnTerminal(params);
    if (refused !== undefined) {
      throw invalid(
        refused,
        `Invalid value for ${refused}: an appointment in status \`${from}\` accepts only \`metadata\` and the move to \`entered_in_error\`.`,
      );
    }
  }
  const cancelling = to === 'cancelled' && from !== 'cancelled';
  if (params.cancellation_reason !== undefined && !cancelling) {
    throw invalid(
      'cancellation_reason',
      'Invalid value for cancellation_reason: it is accepted only with the move to `cancelled`.',
    );
  }
  const rescheduling = params.start !== undefined || params.end !== undefined;
  if (rescheduling && !isReschedulable(from)) {
    const param = params.start !== undefined ? 'start' : 'end';
    throw invalid(
      param,
      `Invalid value for ${param}: an appointment in status \`${from}\` cannot be rescheduled.`,
    );
  }

  const next: Appointment = { ...current, status: to };
  if (rescheduling) {
    next.start = params.start ?? current.start;
    next.end = params.end ?? current.end;
    assertSpan(next, params.end !== undefined ? 'end' : 'start');
  }
  if (needsTime(to) && next.start === null) {
    throw new ApiError('parameter_missing', {
      param: 'start',
      message: `Missing required parameter: start (an appointment in status \`${to}\` needs \`start\` and \`end\`).`,
    });
  }
  for (const field of PLAIN_FIELDS) {
    const value = params[field];
    if (value !== undefined) (next as Record<string, unknown>)[field] = value;
  }
  if (cancelling) {
    next.cancelled_at = nowSeconds;
    next.cancellation_reason = params.cancellation_reason ?? null;
  }
  next.metadata = mergeMetadata(current.metadata, params.metadata);

  const previous = previousAttributes(current, next);
  if (Object.keys(previous).length === 0) {
    return { appointment: current, previous: {}, eventType: null };
  }
  next.updated = nowSeconds;
  return {
    appointment: next,
    previous,
    eventType: cancelling ? 'appointment.cancelled' : 'appointment.updated',
  };
}
