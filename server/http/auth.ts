/**
 * Authentication and authorization (api.md §8). Who may call an operation is read from the
 * route table (`keyKinds`, `scopes`, from the spec's `x-key-kinds` / `x-scopes`), never from a
 * second list kept by hand.
 */
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
import type { KeyKind, RouteDefinition } from './route-types.js';
import type { HttpStore, StoredKey } from './store.js';

/** The key a request was made with, as handlers see it. */
export interface AuthenticatedKey {
  readonly id: string;
  readonly kind: KeyKind;
  readonly livemode: boolean;
  /** Granted scopes; secret keys hold every scope, whatever is stored. */
  readonly scopes: readonly string[];
  /** The one patient an ephemeral key is limited to; null for other kinds. */
  readonly patientId: string | null;
  /** Requests per second overriding the mode's default, or null. */
  readonly rateLimit: number | null;
  /** CIDR ranges and addresses the key may be used from; null or empty = anywhere. */
  readonly allowedIps: readonly string[] | null;
}

/** Kinds allowed when the spec does not say: normal operations. */
const DEFAULT_KINDS: readonly KeyKind[] = ['secret', 'restricted'];

/** The secret from `Authorization: Bearer <secret>`. */
export function bearerSecret(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') {
    throw new ApiError('api_key_missing');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  if (match === null) {
    throw new ApiError('api_key_invalid', {
      message: 'The Authorization header must be `Bearer <API key>`.',
    });
  }
  return match[1]!;
}

/** A timestamp in any form the key store may use, as epoch milliseconds (null when absent). */
export function toEpochMs(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' || typeof value === 'bigint') {
    const n = Number(value);
    // Unix seconds until the year 33658; anything larger is already milliseconds.
    return n < 1e12 ? n * 1000 : n;
  }
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) return toEpochMs(Number(value));
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
}

/** Finds the key, rejecting missing, unknown, revoked (= invalid) and expired ones. */
export async function identifyKey(
  db: Db,
  store: Pick<HttpStore, 'findKeyBySecret'>,
  authorization: string | undefined,
  nowMs: number,
): Promise<AuthenticatedKey> {
  const secret = bearerSecret(authorization);
  const stored: StoredKey | undefined = await store.findKeyBySecret(db, secret);
  if (stored === undefined || toEpochMs(stored.revokedAt) !== null) {
    throw new ApiError('api_key_invalid');
  }
  const expiresAt = toEpochMs(stored.expiresAt);
  if (expiresAt !== null && expiresAt <= nowMs) throw new ApiError('api_key_expired');
  return {
    id: stored.id,
    kind: stored.kind,
    livemode: stored.livemode,
    scopes: stored.scopes,
    patientId: stored.patientId ?? null,
    rateLimit: stored.rateLimit ?? null,
    allowedIps: stored.allowedIps ?? null,
  };
}

/** Whether granted scopes include `needed`; a resource's write scope implies its read scope. */
export function scopeGranted(granted: readonly string[], needed: string): boolean {
  if (granted.includes(needed)) return true;
  if (needed.endsWith(':read'))
    return granted.includes(`${needed.slice(0, -':read'.length)}:write`);
  return false;
}

function describeKinds(kinds: readonly KeyKind[]): string {
  return kinds.map((k) => `${k} key`).join(' or ');
}

/**
 * Checks the key's kind and scopes against the route. Secret keys hold every scope;
 * restricted and ephemeral keys need one of the route's scopes.
 */
export function authorize(route: RouteDefinition, key: AuthenticatedKey): void {
  const kinds = route.keyKinds ?? DEFAULT_KINDS;
  if (!kinds.includes(key.kind)) {
    if (kinds.includes('secret')) throw new ApiError('secret_key_required');
    throw new ApiError('insufficient_scope', {
      message: `This operation can only be called with a ${describeKinds(kinds)}.`,
    });
  }
  if (key.kind === 'secret' || route.scopes.length === 0) return;
  if (route.scopes.some((scope) => scopeGranted(key.scopes, scope))) return;
  const needed = route.scopes[0]!;
  const alsoWrite = needed.endsWith(':read')
    ? ` (or \`${needed.slice(0, -':read'.length)}:write\`)`
    : '';
  throw new ApiError('insufficient_scope', {
    message: `This API key lacks the \`${needed}\` scope${alsoWrite} this operation requires.`,
  });
}
