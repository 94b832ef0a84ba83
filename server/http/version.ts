/**
 * The dated `PatientCare-Version` (docs/design.md#versioning): the request's header, else the
 * version the key's account is pinned to, else the latest; echoed on every response. An
 * unknown or future date is a 400 naming the header and listing the supported versions.
 */
import { ApiError } from '../errors.js';

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
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (value === '') return fallback;
  if (known.includes(value)) return value;
  throw new ApiError('parameter_invalid', {
    param: 'PatientCare-Version',
    message: `Unknown PatientCare-Version; supported versions: ${known.join(', ')}.`,
  });
}
