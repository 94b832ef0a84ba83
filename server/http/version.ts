/**
 * The dated `PatientCare-Version` (docs/design.md#versioning): the request's header, else the
 * version the key's account is pinned to, else the latest; echoed on every response. An
 * unknown or future date is a 400 naming the header and listing the supported versions.
 */
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
import { cachedAccountApiVersion, lastReadAccountApiVersion } from '../keys/account.js';
import { keyCacheNow } from '../keys/cache.js';

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

/**
 * The version of an answer given before a route chose one (a refusal by the router, the error
 * handler or Node's parser): the supported version the header names, else the account's pin,
 * else the latest. The pin is one row per database (one account), so it is known without a
 * key: from this process's cache (read at most a second ago, shared with the authentication
 * hook), else from the one read under way. Never rejects: when the read fails it is the last
 * pin read (else the latest), since a refusal must not become a 503 over which version to
 * render it in.
 */
export function earlyAnswerVersion(
  db: Db,
  header: string | string[] | undefined,
  known: readonly string[],
): string | Promise<string> {
  const named = namedVersion(header, known);
  if (named !== null) return named;
  const pin = cachedAccountApiVersion(db, keyCacheNow());
  if (!(pin instanceof Promise)) return negotiateVersion(undefined, known, pin);
  return pin.then(
    (version) => negotiateVersion(undefined, known, version),
    () => negotiateVersion(undefined, known, lastReadAccountApiVersion(db)),
  );
}
