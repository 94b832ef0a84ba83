/**
 * The appointment's two shapes: as stored (times in unix seconds, what the repositories, the
 * stored events and the FHIR mapping hold) and as the latest API version returns it (RFC 3339
 * date-times). Handlers convert requests in and records out here, and nowhere else.
 */
import type { ApiAppointment, StoredAppointment } from '../resources/appointment.js';
import { dateTimeToSeconds, storedTimeOut } from './date-time.js';

export type { ApiAppointment, StoredAppointment };

/** Request parameters with their `start`/`end` read into unix seconds. */
export type WithStoredTimes<T> = Omit<T, 'start' | 'end'> & { start?: number; end?: number };

/** A create or update body's times as unix seconds (`400 parameter_invalid` out of range). */
export function timesIn<T extends { start?: string; end?: string }>(params: T): WithStoredTimes<T> {
  const { start, end, ...rest } = params;
  const out: WithStoredTimes<T> = rest as WithStoredTimes<T>;
  if (start !== undefined) out.start = dateTimeToSeconds(start, 'start');
  if (end !== undefined) out.end = dateTimeToSeconds(end, 'end');
  return out;
}

/** A stored appointment as the API returns it. */
export function appointmentOut(stored: StoredAppointment): ApiAppointment {
  return { ...stored, start: storedTimeOut(stored.start), end: storedTimeOut(stored.end) };
}
