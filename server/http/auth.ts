/**
 * Authentication and authorization (docs/design.md#keys). Who may call an operation is read from
 * the route table (`keyKinds`, `scopes`, from the spec's `x-key-kinds` / `x-scopes`), never from a
 * second list kept by hand.
 */

import type { KeyKind, RouteDefinition } from '../../contract/route-types.js';
import { scopeGranted } from '../../contract/scopes.js';
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
import { type ApiKeyRecord, keyState } from '../keys/index.js';
import type { HttpStore } from './store.js';

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
  /** CIDR ranges the key may be used from; empty = anywhere. */
  readonly allowedIps: readonly string[];
  /** Browser origins a publishable or ephemeral key may be used from; empty = any. */
  readonly allowedOrigins: readonly string[];
  /** The key's requests must name their actor (`PatientCare-Actor`). */
  readonly requireActor: boolean;
  /** The actor an ephemeral key was minted for; null for other kinds (and unnamed mints). */
  readonly actor: string | null;
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
  return match[1] ?? '';
}

/** Finds the key, rejecting missing, unknown, revoked (= invalid) and expired ones. */
export async function identifyKey(
  db: Db,
  store: Pick<HttpStore, 'findKeyBySecret'>,
  authorization: string | undefined,
  nowMs: number,
): Promise<AuthenticatedKey> {
  const secret = bearerSecret(authorization);
  const stored: ApiKeyRecord | undefined = await store.findKeyBySecret(db, secret);
  if (stored === undefined) throw new ApiError('api_key_invalid');
  // A revoked key is simply invalid: saying "revoked" would confirm it once existed.
  const state = keyState(stored, nowMs);
  if (state === 'revoked') throw new ApiError('api_key_invalid');
  if (state === 'expired') throw new ApiError('api_key_expired');
  return {
    id: stored.id,
    kind: stored.kind,
    livemode: stored.livemode,
    scopes: stored.scopes,
    patientId: stored.patientId ?? null,
    rateLimit: stored.rateLimit ?? null,
    allowedIps: stored.allowedIps,
    allowedOrigins: stored.allowedOrigins ?? [],
    requireActor: stored.requireActor ?? false,
    actor: stored.actor ?? null,
  };
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
  const needed = route.scopes[0] ?? '';
  const alsoWrite = needed.endsWith(':read')
    ? ` (or \`${needed.slice(0, -':read'.length)}:write\`)`
    : '';
  throw new ApiError('insufficient_scope', {
    message: `This API key lacks the \`${needed}\` scope${alsoWrite} this operation requires.`,
  });
}
