/**
 * Appointment times at the API boundary. Since 2026-12-01 the API speaks RFC 3339 date-times
 * with an offset; storage keeps unix seconds (the records, the events' stored objects and the
 * FHIR mapping read seconds), so the conversion happens here, on the way in and out.
 */
import { MAX_DATE_TIME_SECONDS, secondsToDateTime } from '../../contract/date-time.js';
import { ApiError } from '../errors.js';

export { MAX_DATE_TIME_SECONDS, secondsToDateTime };

/**
 * RFC 3339 with offset (validated against the spec's pattern before it gets here) → unix
 * seconds. An instant before 1970 or after 9999 is `400 parameter_invalid` naming `param`.
 */
export function dateTimeToSeconds(value: string, param: string): number {
  const ms = Date.parse(value);
  const seconds = ms / 1000;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_DATE_TIME_SECONDS) {
    throw new ApiError('parameter_invalid', {
      param,
      message: `${param} must be an instant from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z.`,
    });
  }
  return seconds;
}

/** A nullable stored time as the API returns it. */
export function storedTimeOut(seconds: number | null): string | null {
  return seconds === null ? null : secondsToDateTime(seconds);
}
