/**
 * Appointment times at the API boundary. Since 2026-12-01 the API speaks RFC 3339 date-times
 * with an offset; storage keeps unix seconds (the records, the events' stored objects and the
 * FHIR mapping read seconds), so the conversion happens here, on the way in and out.
 */
import {
  isWritableSeconds,
  MAX_DATE_TIME_SECONDS,
  secondsToDateTime,
} from '../../contract/date-time.js';
import { ApiError } from '../errors.js';

export { isWritableSeconds, MAX_DATE_TIME_SECONDS, secondsToDateTime };

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

/**
 * A stored time as RFC 3339 in UTC, for every reader (the API's versions, events, webhooks,
 * FHIR). Releases before 2026-11-01 stored any integer ≥ 0, so rows may hold milliseconds
 * (`1795747516000`) or larger; such a time is written as the nearest instant that has a text,
 * 9999-12-31T23:59:59Z (below 1970: 1970-01-01T00:00:00Z; a fraction is cut to the second).
 * Clamped, not refused: the row stays readable and correctable through the API in every
 * version, and every answer stays valid by its version's document (2026-11-01 migrates the
 * text down to 253402300799). The stored value is left alone for its owner to repair;
 * `npm run doctor` lists such rows (docs/design.md, "Upgrades").
 */
export function storedSecondsOut(seconds: number): string {
  if (isWritableSeconds(seconds)) return secondsToDateTime(seconds);
  if (!(seconds >= 0)) return secondsToDateTime(0);
  if (seconds > MAX_DATE_TIME_SECONDS) return secondsToDateTime(MAX_DATE_TIME_SECONDS);
  return secondsToDateTime(Math.floor(seconds));
}

/** A nullable stored time as the API returns it. */
export function storedTimeOut(seconds: number | null): string | null {
  return seconds === null ? null : storedSecondsOut(seconds);
}
