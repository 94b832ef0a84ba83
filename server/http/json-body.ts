/**
 * Reading a request body as JSON text. The spec's rule ("Text and numbers", spec/openapi.yaml):
 * a body is UTF-8 JSON whose strings are Unicode text (I-JSON, RFC 7493). So:
 * - a `charset` other than UTF-8 → 415 `content_type_unsupported` (nothing is transcoded);
 * - bytes that are not UTF-8 (Latin-1 `é`, overlong forms, lone surrogates encoded as
 *   bytes) → 400 `body_invalid_json`: the decoder runs in fatal mode, so a patient's name is
 *   never silently turned into U+FFFD;
 * - an escaped lone surrogate (`"\ud800"`) → 400 `body_invalid_json` naming the field;
 * - `__proto__` is an ordinary key here (`JSON.parse` makes it an own data property, never a
 *   prototype); validation then refuses it like any key the schema does not have;
 * - a body nested deeper than `MAX_BODY_DEPTH` → 400 `parameter_invalid`, found by a scan of
 *   the text before `JSON.parse` (docs/design.md#validation-cost).
 */
import { MIMEType } from 'node:util';
import { ApiError } from '../errors.js';
import { bracketPath, findValue } from './value-walk.js';

// One decoder for every body: fatal (throws on bytes that are not UTF-8); a leading
// byte-order mark is skipped, as RFC 8259 §8.1 permits (and as Fastify's parser did).
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The deepest nesting of arrays and objects a body may have. The deepest any operation's
 * schema reaches is 6 (a FHIR Patient's `identifier[].type.coding[]`); 1 MiB of `[` parses
 * 500,000 deep, at 0.4 s of CPU for `JSON.parse` alone (more than linear), with the event
 * loop blocked throughout.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects more than `limit` deep: one pass over the text,
 * brackets inside strings not counted. Stops at the first level past the limit.
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // `\`: the next character is escaped, whatever it is
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether `label` names UTF-8 under the WHATWG Encoding Standard (`utf-8`, `UTF8`, …). */
function isUtf8Label(label: string): boolean {
  try {
    return new TextDecoder(label).encoding === 'utf-8';
  } catch {
    return false;
  }
}

/** Throws 415 unless the `Content-Type`'s charset, if any, is UTF-8. */
export function checkCharset(contentType: string | undefined): void {
  if (contentType === undefined) return;
  let charset: string | null;
  try {
    charset = new MIMEType(contentType).params.get('charset');
  } catch {
    throw new ApiError('content_type_unsupported');
  }
  if (charset !== null && !isUtf8Label(charset)) {
    throw new ApiError('content_type_unsupported', {
      message: 'Request bodies must be JSON encoded as UTF-8; send `charset=utf-8` or no charset.',
    });
  }
}

/**
 * Parses a JSON request body from its bytes. Returns `undefined` for an empty (or all
 * whitespace) body; throws an `ApiError` for anything that is not UTF-8 JSON text.
 */
export function parseJsonBody(bytes: Buffer, contentType: string | undefined): unknown {
  checkCharset(contentType);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ApiError('body_invalid_json', {
      message:
        'The request body is not valid UTF-8 (for example Latin-1 bytes or an overlong form); send JSON encoded as UTF-8.',
    });
  }
  if (text.trim() === '') return undefined;
  // Only text long enough to nest that deep is scanned.
  if (text.length > 2 * MAX_BODY_DEPTH && nestedDeeperThan(text, MAX_BODY_DEPTH)) {
    throw new ApiError('parameter_invalid', {
      message: `The request body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep.`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('body_invalid_json');
  }
  const lone = findValue(value, (v) => typeof v === 'string' && !v.isWellFormed(), true);
  if (lone !== undefined) {
    const param = bracketPath(lone.path);
    throw new ApiError('body_invalid_json', {
      param,
      message: `The request body is not valid JSON text: ${lone.inKey ? 'a key in ' : ''}${param ?? 'the body'} has a lone UTF-16 surrogate escape (\\ud800–\\udfff must come in pairs).`,
    });
  }
  return value;
}
