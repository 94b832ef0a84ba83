/**
 * Values every supported database stores exactly (spec/openapi.yaml, "Text and numbers"):
 * - no string (value or key) holds NUL (U+0000): PostgreSQL's `text` and `jsonb` cannot;
 * - every number is an integer within ±(2^53 − 1): SQLite keeps larger ones as rounded
 *   doubles (`1e+23`), PostgreSQL as exact numerics or not at all, so the two would answer
 *   differently — and a client's value would not come back as sent;
 * - no object key is `__proto__`: JavaScript gives that name a meaning of its own, so a map
 *   (`metadata`) holding it would not round-trip.
 * Checked on every request's parsed body, query and path parameters after schema validation,
 * so a request is refused with 400 `parameter_invalid` naming the parameter, the same on
 * every database, before any handler or query runs.
 */
import { ApiError } from '../errors.js';
import { bracketPath, findValue } from './value-walk.js';

const NUL = '\u0000';

function unstorable(value: unknown, inKey: boolean): boolean {
  if (typeof value === 'string') return value.includes(NUL) || (inKey && value === '__proto__');
  return typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value);
}

/** Why a value cannot be stored, as the end of an "Invalid value for …" sentence. */
function reason(value: unknown, inKey: boolean): string {
  if (typeof value === 'number') {
    return `must be an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`;
  }
  if (value === '__proto__') return 'the key `__proto__` is not accepted';
  return `${inKey ? 'keys' : 'text'} must not contain the NUL character (U+0000)`;
}

/** Throws 400 `parameter_invalid` for the first value no database can store as sent. */
export function checkStorable(value: unknown): void {
  const found = findValue(value, unstorable, true);
  if (found === undefined) return;
  const param = bracketPath(found.path);
  const why = reason(found.value, found.inKey);
  throw new ApiError('parameter_invalid', {
    param,
    message:
      param === null ? `Invalid request body: ${why}.` : `Invalid value for ${param}: ${why}.`,
  });
}
