/**
 * The dated `PatientCare-Version` (docs/design.md#versioning): the request's header, else the
 * version the key's account is pinned to, else the latest; echoed on every response. An
 * unknown or future date is a 400 naming the header and listing the supported versions.
 */
import { ApiError } from '../errors.js';

/** The header's first value, trimmed; '' when absent. */
function headerText(header: string | string[] | undefined): string {
  return (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
}

/**
 * The version a request's header names when it is a supported one, else null. Every answer to
 * such a request is in that version, refusals before routing and authentication included: a
 * client pinned by header never sees another version's contract (an unknown date gets the
 * latest, with the 400 that says why once the route is reached).
 */
export function namedVersion(
  header: string | string[] | undefined,
  known: readonly string[],
): string | null {
  const value = headerText(header);
  return value !== '' && known.includes(value) ? value : null;
}

/**
 * The version a request is served in; throws on an unknown date. `known` is newest first;
 * a pin that is no longer supported falls back to the latest rather than refusing every call.
 */
export function negotiateVersion(
  header: string | string[] | undefined,
  known: readonly string[],
  pinned: string | null = null,
): string {
  const latest = known[0] ?? '';
  const fallback = pinned !== null && known.includes(pinned) ? pinned : latest;
  if (header === undefined) return fallback;
  const value = headerText(header);
  if (value === '') return fallback;
  if (known.includes(value)) return value;
  throw new ApiError('parameter_invalid', {
    param: 'PatientCare-Version',
    message: `Unknown PatientCare-Version; supported versions: ${known.join(', ')}.`,
  });
}
