/**
 * The webhook signature scheme, the one module the server signs deliveries with and receivers
 * (the client package's `verifyWebhook`) check them with (docs/design.md#webhooks,
 * spec/guides/webhooks-security.md): `PatientCare-Signature: t=<unix>,v1=<hex>[,v1=<hex>]` with
 * `v1 = HMAC-SHA256(secret, "<t>.<raw body>")`, the key being the whole secret string
 * (`whsec_…`) as UTF-8. A receiver accepts when any `v1` matches, compared in constant time, and
 * `|now − t| ≤ tolerance` (300 s). Several `v1` values let a sender sign with old and new secrets
 * while a secret is rotated. Node-only (`node:crypto`), hence its own module.
 *
 * `verifyWebhook` returns `{ event, error }` like the client's methods instead of throwing: a bad
 * signature is an expected input of a public endpoint, not a bug. It throws `TypeError` only on
 * misuse (empty secret, bad tolerance).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries the signature. */
export const SIGNATURE_HEADER = 'PatientCare-Signature';

/** Default allowed clock difference between sender and receiver, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Why a delivery was rejected; safe to log (no payload content). */
export type WebhookErrorCode =
  | 'signature_header_missing'
  | 'signature_header_malformed'
  | 'signature_mismatch'
  | 'timestamp_outside_tolerance'
  | 'payload_invalid';

export interface WebhookVerificationError {
  readonly code: WebhookErrorCode;
  readonly message: string;
}

/** The least an event has (docs/design.md#ids); pass the spec's `Event` type as `T` for the full shape. */
export interface WebhookEventBase {
  readonly id: string;
  readonly type: string;
}

export type WebhookVerification<T> =
  | { readonly event: T; readonly error?: undefined }
  | { readonly event?: undefined; readonly error: WebhookVerificationError };

export interface VerifyWebhookOptions {
  /** Seconds `t` may differ from now, either way (default 300). */
  tolerance?: number;
  /** Current unix time in seconds (default: the system clock). */
  now?: number;
}

/**
 * Checks a delivery's signature and freshness and returns the parsed event.
 * `rawBody` must be the bytes as received: re-serialised JSON does not verify.
 * @example
 * const { event, error } = verifyWebhook<Event>(rawBody, req.headers['patientcare-signature'], secret);
 * if (error) return reply.code(400).send();
 * if (await alreadyHandled(event.id)) return reply.code(200).send(); // at-least-once delivery
 */
export function verifyWebhook<T extends WebhookEventBase = WebhookEventBase>(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookVerification<T> {
  checkSecret(secret);
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new TypeError('tolerance must be a number >= 0');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('rawBody must be the raw string or bytes of the request body');
  }
  if (signatureHeader === undefined || signatureHeader === null || signatureHeader.trim() === '') {
    return fail('signature_header_missing', `${SIGNATURE_HEADER} header is missing`);
  }
  const parsed = parseSignatureHeader(signatureHeader);
  if (!parsed) {
    return fail(
      'signature_header_malformed',
      `${SIGNATURE_HEADER} must be t=<unix>,v1=<hex>[,v1=<hex>]`,
    );
  }
  const expected = hmac(rawBody, secret, parsed.timestamp);
  let matched = false;
  // Compare every candidate, without stopping at the first match, in constant time each.
  for (const candidate of parsed.signatures) {
    const bytes = Buffer.from(candidate, 'hex');
    if (bytes.length === expected.length && timingSafeEqual(bytes, expected)) matched = true;
  }
  if (!matched) return fail('signature_mismatch', 'no v1 signature matches the payload');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (!(Math.abs(now - parsed.timestamp) <= tolerance)) {
    return fail(
      'timestamp_outside_tolerance',
      `signature timestamp is more than ${tolerance} s from now`,
    );
  }
  return parseEvent<T>(rawBody);
}

/**
 * The `PatientCare-Signature` value for `body` at `timestamp` (unix seconds): one `v1` per secret,
 * in the order given. The server signs deliveries with it; tests sign fixtures with it.
 * @example
 * const header = signWebhookPayload(JSON.stringify(event), 'whsec_…', Math.floor(Date.now() / 1000));
 */
export function signWebhookPayload(
  body: string | Uint8Array,
  secret: string | readonly string[],
  timestamp: number,
): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError('timestamp must be unix seconds (a non-negative integer)');
  }
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('at least one secret is required');
  const parts = [`t=${timestamp}`];
  for (const one of secrets) {
    checkSecret(one);
    parts.push(`v1=${hmac(body, one, timestamp).toString('hex')}`);
  }
  return parts.join(',');
}

/** `t` and every `v1` of a signature header; `undefined` when it is not in the documented form. */
export function parseSignatureHeader(
  header: string,
): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,15}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return undefined;
      signatures.push(value.toLowerCase());
    }
    // Other schemes (a future v2) are ignored so senders can add them without breaking receivers.
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

function hmac(body: string | Uint8Array, secret: string, timestamp: number): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

function parseEvent<T extends WebhookEventBase>(
  rawBody: string | Uint8Array,
): WebhookVerification<T> {
  const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch {
    return fail('payload_invalid', 'payload is not JSON');
  }
  const { id, type } = (event ?? {}) as Partial<WebhookEventBase>;
  if (typeof event !== 'object' || typeof id !== 'string' || typeof type !== 'string') {
    return fail('payload_invalid', 'payload is not an event (id and type are required)');
  }
  return { event: event as T };
}

function fail(code: WebhookErrorCode, message: string): { error: WebhookVerificationError } {
  return { error: { code, message } };
}

function checkSecret(secret: unknown): void {
  if (typeof secret !== 'string' || secret === '')
    throw new TypeError('webhook secret is required');
}
