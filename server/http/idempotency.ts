/**
 * Idempotent POSTs (docs/design.md#idempotency, spec: Idempotency). The first completed
 * response per namespace + mode is stored and replayed; the stored response is written in the
 * same transaction as the write it answers (see `HandlerContext.write`), so a committed write
 * always has its response on record.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from './auth.js';
import type { BeginInput, HttpStore } from './store.js';

/** Longest accepted `Idempotency-Key`. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

// Visible ASCII without spaces, as the spec's header parameter says.
const PRINTABLE = /^[\x21-\x7E]+$/;

/** The request's `Idempotency-Key`, or undefined; a bad one is `parameter_invalid`. */
export function readIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(',') : value;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE.test(key)) {
    throw new ApiError('parameter_invalid', {
      param: 'Idempotency-Key',
      message: `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`,
    });
  }
  return key;
}

/**
 * Whose records an Idempotency-Key is looked up in (spec: Idempotency): the account's, per
 * mode, for its server keys (secret and restricted), so a retry sent after rotating a key
 * replays instead of writing a second time. A publishable key is public, so it keeps its own
 * records (it must not be able to claim, and so block, the keys a server will send), and an
 * ephemeral key shares records only with ephemeral keys of its patient, so one patient's
 * response is never replayed to another's key. The mode is the record's other half.
 */
export function idempotencyNamespace(
  key: Pick<AuthenticatedKey, 'id' | 'kind' | 'patientId'>,
): string {
  switch (key.kind) {
    case 'secret':
    case 'restricted':
      return 'account';
    case 'publishable':
      return `publishable:${key.id}`;
    case 'ephemeral':
      return `patient:${key.patientId ?? key.id}`;
  }
}

/** JSON with object keys sorted at every level, so key order never changes the hash. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 over method, path and canonical body: what "the same request" means. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

/** The path of a raw URL, without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** A started idempotent request: completed inside the write, or afterwards, or abandoned. */
export interface IdempotencyRecord {
  readonly args: BeginInput;
  /** Set once the response is stored (inside the write's transaction, after it commits). */
  completed: boolean;
}

/** What to do with a POST that carries a key. */
export type IdempotencyStart =
  | { kind: 'run'; record: IdempotencyRecord }
  | { kind: 'replay'; status: number; bodyText: string };

/**
 * Response fields that are credentials, per operation: a replay carries them only to the API
 * key whose request stored the answer. Records are shared by the account's server keys (so a
 * retry after a key rotation replays instead of writing twice), but a replayed signing secret
 * would hand another key — perhaps a restricted key with fewer scopes, or one that only
 * learnt the Idempotency-Key — a credential it never created. Such a replay is the original
 * answer without the field (the endpoint's id and settings, which `retrieveWebhook` shows
 * anyway). `createEphemeralKey` is not listed: only secret keys may call it, and they hold
 * every scope already.
 */
const REPLAY_CREDENTIALS: Readonly<Record<string, string>> = { createWebhook: 'secret' };

/** The replayed body for `keyId`: as stored, or without the operation's credential field. */
function replayBody(
  operationId: string,
  bodyText: string,
  storedKeyId: string | null,
  keyId: string,
): string {
  const field = REPLAY_CREDENTIALS[operationId];
  if (field === undefined || storedKeyId === keyId) return bodyText;
  const body = JSON.parse(bodyText) as unknown;
  if (body === null || typeof body !== 'object' || !(field in body)) return bodyText;
  const { [field]: _credential, ...rest } = body as Record<string, unknown>;
  return JSON.stringify(rest);
}

/**
 * Claims the key for this request, or answers from the record: a replay, 400
 * `idempotency_key_reused` (other request, same key) or 409 `idempotency_key_in_use`.
 */
export async function startIdempotent(
  db: Db,
  store: Pick<HttpStore, 'beginIdempotent'>,
  args: BeginInput,
  operationId = '',
): Promise<IdempotencyStart> {
  const begun = await store.beginIdempotent(db, args);
  switch (begun.state) {
    case 'started':
      return { kind: 'run', record: { args, completed: false } };
    case 'replay':
      return {
        kind: 'replay',
        status: begun.status,
        bodyText: replayBody(operationId, begun.bodyText, begun.keyId, args.keyId ?? ''),
      };
    case 'reused':
      throw new ApiError('idempotency_key_reused', { param: 'Idempotency-Key' });
    case 'in_use':
      throw new ApiError('idempotency_key_in_use', { param: 'Idempotency-Key' });
  }
}
