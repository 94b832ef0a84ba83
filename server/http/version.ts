/**
 * The dated `PatientCare-Version` header (docs/design.md#versioning): optional on requests, echoed
 * on every response; an unknown date is a 400 naming the header.
 */
import { ApiError } from '../errors.js';

/** The version a request asked for (or the current one); throws on an unknown date. */
export function negotiateVersion(
  header: string | string[] | undefined,
  known: readonly string[],
): string {
  const current = known[0] ?? '';
  if (header === undefined) return current;
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (value === '') return current;
  if (known.includes(value)) return value;
  throw new ApiError('parameter_invalid', {
    param: 'PatientCare-Version',
    message: `Unknown PatientCare-Version; supported versions: ${known.join(', ')}.`,
  });
}
