/**
 * The appointment state machine (docs/design.md#appointments, the Appointments tag of the spec) and
 * the time rules that go with it. Pure: no database, no clock; the handlers feed it values and act
 * on the answer.
 */
import type { components } from '../../generated/types.js';
import { ApiError } from '../errors.js';
import { APPOINTMENT_STATUSES, type AppointmentStatus } from '../resources/appointment.js';

export { APPOINTMENT_STATUSES, type AppointmentStatus };

// The list names exactly the spec's `AppointmentStatus` enum: a status added to or dropped from
// either one alone fails the type check here, not a request at run time.
type SpecStatus = components['schemas']['AppointmentStatus'];
const _sameAsSpec: [SpecStatus, AppointmentStatus] extends [AppointmentStatus, SpecStatus]
  ? true
  : never = true;

/** Where each status may go next: the spec's table, one row per status. */
const MOVES: Readonly<Record<AppointmentStatus, readonly AppointmentStatus[]>> = {
  proposed: ['pending', 'cancelled', 'entered_in_error'],
  pending: ['booked', 'cancelled', 'entered_in_error'],
  booked: ['arrived', 'cancelled', 'noshow', 'entered_in_error'],
  arrived: ['checked_in', 'cancelled', 'entered_in_error'],
  checked_in: ['fulfilled', 'entered_in_error'],
  // Terminal states still accept the correction "this record was a mistake".
  fulfilled: ['entered_in_error'],
  cancelled: ['entered_in_error'],
  noshow: ['entered_in_error'],
  entered_in_error: [],
};

const TERMINAL: ReadonlySet<AppointmentStatus> = new Set([
  'fulfilled',
  'cancelled',
  'noshow',
  'entered_in_error',
]);

/** Statuses in which `start`/`end` may still change (a reschedule). */
const RESCHEDULABLE: ReadonlySet<AppointmentStatus> = new Set(['proposed', 'pending', 'booked']);

/** Statuses that need a time: the appointment is (about to be) on the calendar. */
const NEEDS_TIME: ReadonlySet<AppointmentStatus> = new Set(['pending', 'booked']);

/** Whether `from → to` is a move of the state machine (staying put is not a move). */
export function canMove(from: AppointmentStatus, to: AppointmentStatus): boolean {
  return MOVES[from].includes(to);
}

/** Whether nothing but the move to `entered_in_error` (and metadata) can change any more. */
export function isTerminal(status: AppointmentStatus): boolean {
  return TERMINAL.has(status);
}

/** Whether `start`/`end` may change in this status. */
export function isReschedulable(status: AppointmentStatus): boolean {
  return RESCHEDULABLE.has(status);
}

/** Whether an appointment in this status must have `start` and `end`. */
export function needsTime(status: AppointmentStatus): boolean {
  return NEEDS_TIME.has(status);
}

/**
 * Throws 400 `status_transition_invalid` (param `status`) unless `from → to` is allowed.
 * Sending the current status is not a move, so `from === to` passes.
 *
 * @example assertMove('fulfilled', 'booked') // throws: cannot move from `fulfilled` to `booked`
 */
export function assertMove(from: AppointmentStatus, to: AppointmentStatus): void {
  if (from === to || canMove(from, to)) return;
  throw new ApiError('status_transition_invalid', {
    param: 'status',
    message: `An appointment cannot move from \`${from}\` to \`${to}\`.`,
  });
}

/** A time span as stored: both set, or both `null`. */
export interface TimeSpan {
  start: number | null;
  end: number | null;
}

/**
 * Checks a span: `start` and `end` go together (the absent one is `parameter_missing`) and
 * `end > start` (`parameter_invalid`; `blame` names the field the client sent, default `end`).
 */
export function assertSpan(span: TimeSpan, blame: 'start' | 'end' = 'end'): void {
  if (span.start === null && span.end === null) return;
  if (span.start === null || span.end === null) {
    const missing = span.start === null ? 'start' : 'end';
    throw new ApiError('parameter_missing', {
      param: missing,
      message: `Missing required parameter: ${missing} (\`start\` and \`end\` go together).`,
    });
  }
  if (span.end <= span.start) {
    throw new ApiError('parameter_invalid', {
      param: blame,
      message: `Invalid value for ${blame}: \`end\` must be after \`start\`.`,
    });
  }
}

/** The creation input that decides the first status. */
export interface CreateTiming {
  start?: number | undefined;
  end?: number | undefined;
  confirm?: boolean | undefined;
}

/**
 * The status a new appointment starts in, after checking its times: `proposed` without a time,
 * `pending` with one, `booked` with `confirm: true` (which needs a time: `parameter_missing`,
 * param `start`).
 */
export function initialStatus(input: CreateTiming): AppointmentStatus {
  const span = { start: input.start ?? null, end: input.end ?? null };
  assertSpan(span);
  if (span.start === null) {
    if (input.confirm === true) {
      throw new ApiError('parameter_missing', {
        param: 'start',
        message: 'Missing required parameter: start (`confirm: true` books a time).',
      });
    }
    return 'proposed';
  }
  return input.confirm === true ? 'booked' : 'pending';
}
