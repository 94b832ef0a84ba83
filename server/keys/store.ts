import { isActor } from '../../contract/actor.js';
import { EPHEMERAL_SCOPES, isScope } from '../../contract/scopes.js';
import { expandSmartScopes } from '../../contract/smart-scopes.js';
import { CURRENT_API_VERSION } from '../config.js';
import type { Db } from '../db/types.js';
import { newId } from '../ids.js';
import { pinAccountIfUnpinned } from './account.js';
import { validateAllowlist } from './allowlist.js';
import { cachedKeyLookup, forgetCachedKeys, keyCacheNow } from './cache.js';
import { generateSecret, type KeyKind, parseSecret, secretHint } from './format.js';
import { hashSecret } from './hash.js';
import { type ApiKeyRecord, toKeyRecord } from './record.js';

export interface CreateKeyOptions {
  kind: KeyKind;
  livemode: boolean;
  /** Required (non-empty) for restricted and ephemeral keys; not allowed on others. */
  scopes?: readonly string[];
  /** CIDR list; secret and restricted keys only. */
  allowedIps?: readonly string[];
  /** `https://host[:port]` origins; publishable and ephemeral keys only. */
  allowedOrigins?: readonly string[];
  /** Ephemeral keys only, and required for them. */
  patientId?: string | null;
  /** Lifetime in seconds from now; none = no expiry. */
  expiresInSeconds?: number | null;
  /** Requests per second for this key instead of the mode default. */
  rateLimit?: number | null;
  description?: string | null;
  /**
   * Secret and restricted keys only: refuse the key's requests that do not name their actor
   * in `PatientCare-Actor` (`400 parameter_missing`).
   */
  requireActor?: boolean;
  /** Ephemeral keys only: the actor they were minted for (the minting request's actor). */
  actor?: string | null;
  /** The clock reading to create the key at (ids use `key_`, or `ephkey_` for ephemeral keys). */
  nowMs?: number;
}

/** Bad options for a new key; the message says which (no secrets or PHI in it). */
export class KeyOptionsError extends Error {
  override readonly name = 'KeyOptionsError';
}

/**
 * Creates a key and returns its secret — the only time the secret exists outside the
 * caller: only its SHA-256 hash is stored.
 */
export async function createKey(
  db: Db,
  options: CreateKeyOptions,
): Promise<{ key: ApiKeyRecord; secret: string }> {
  const checked = checkOptions(options);
  const nowMs = options.nowMs ?? Date.now();
  const created = Math.floor(nowMs / 1000);
  const secret = generateSecret(options.kind, options.livemode);
  const id = newId(options.kind === 'ephemeral' ? 'ephkey' : 'key', nowMs);
  const expiresAt =
    options.expiresInSeconds === undefined || options.expiresInSeconds === null
      ? null
      : created + Math.ceil(options.expiresInSeconds);
  await db.run(
    `INSERT INTO api_keys (id, secret_hash, kind, livemode, scopes, allowed_ips, allowed_origins,
      patient_id, rate_limit, hint, description, created, expires_at, revoked_at,
      require_actor, actor)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL, $14, $15)`,
    [
      id,
      hashSecret(secret),
      options.kind,
      options.livemode,
      JSON.stringify(checked.scopes),
      JSON.stringify(checked.allowedIps),
      JSON.stringify(checked.allowedOrigins),
      options.patientId ?? null,
      options.rateLimit ?? null,
      secretHint(secret),
      options.description ?? null,
      created,
      expiresAt,
      options.requireActor === true ? 1 : 0,
      options.actor ?? null,
    ],
  );
  // The account's first key pins it to the version current now (docs/design.md#versioning).
  await pinAccountIfUnpinned(db, CURRENT_API_VERSION, nowMs);
  const key = await getKey(db, id);
  if (!key) throw new Error('created key not found');
  return { key, secret };
}

/**
 * The key a request presents, found by hash, or `undefined` (unknown, or not a key's shape —
 * then without touching the database). Expired and revoked keys are returned too, so the
 * caller can answer `api_key_expired`; check them with `keyState` on every use.
 *
 * A key found in the last `KEY_CACHE_TTL_MS` (1 s) comes from this process's cache without a
 * database read (see cache.ts): a change made by another process is seen within that time,
 * one made through this module at once. `nowMs` is the cache's monotonic clock (tests pass
 * their own); the record returned is frozen, as other requests share it.
 */
export async function findKeyBySecret(
  db: Db,
  secret: string,
  nowMs: number = keyCacheNow(),
): Promise<ApiKeyRecord | undefined> {
  const parsed = parseSecret(secret);
  if (!parsed) return undefined;
  const hash = hashSecret(secret);
  return cachedKeyLookup(db, hash, nowMs, async () => {
    const row = await db.get('SELECT * FROM api_keys WHERE secret_hash = $1', [hash]);
    if (!row) return undefined;
    const key = toKeyRecord(row);
    // The prefix is part of what was hashed, so this only fails on a corrupted row.
    return key.kind === parsed.kind && key.livemode === parsed.livemode ? key : undefined;
  });
}

/** A key by id, or `undefined`. */
export async function getKey(db: Db, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await db.get('SELECT * FROM api_keys WHERE id = $1', [id]);
  return row ? toKeyRecord(row) : undefined;
}

/** Keys oldest first, ephemeral ones left out unless asked for (they are many and short). */
export async function listKeys(
  db: Db,
  options: { includeEphemeral?: boolean } = {},
): Promise<ApiKeyRecord[]> {
  const rows = await db.all(
    options.includeEphemeral
      ? 'SELECT * FROM api_keys ORDER BY id'
      : `SELECT * FROM api_keys WHERE kind <> 'ephemeral' ORDER BY id`,
  );
  return rows.map(toKeyRecord);
}

/**
 * Revokes a key from now on; false when there is no such key or it was already revoked.
 * Requests to this process refuse it at once; other processes within `KEY_CACHE_TTL_MS`.
 */
export async function revokeKey(db: Db, id: string, nowMs: number = Date.now()): Promise<boolean> {
  try {
    const result = await db.run(
      'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [Math.floor(nowMs / 1000), id],
    );
    return result.changes > 0;
  } finally {
    // After the write (so no request can read the old row again and keep it), and after a
    // failed one too: a lost connection may have hidden a commit.
    forgetCachedKeys();
  }
}

function checkOptions(options: CreateKeyOptions): {
  scopes: string[];
  allowedIps: string[];
  allowedOrigins: string[];
} {
  const { kind } = options;
  // SMART names (`system/Patient.read`) are stored as ours (`patients:read`).
  const scopes = [...new Set(expandSmartScopes(options.scopes ?? []))];
  for (const scope of scopes) {
    if (!isScope(scope)) throw new KeyOptionsError(`unknown scope: ${scope}`);
  }
  if ((kind === 'restricted' || kind === 'ephemeral') && scopes.length === 0) {
    throw new KeyOptionsError(`a ${kind} key needs at least one scope`);
  }
  if ((kind === 'secret' || kind === 'publishable') && scopes.length > 0) {
    throw new KeyOptionsError(`a ${kind} key takes no scopes`);
  }
  if (kind === 'ephemeral') {
    const bad = scopes.find((scope) => !(EPHEMERAL_SCOPES as readonly string[]).includes(scope));
    if (bad) throw new KeyOptionsError(`an ephemeral key cannot have scope ${bad}`);
    if (!options.patientId) throw new KeyOptionsError('an ephemeral key needs a patient');
  } else if (options.patientId) {
    throw new KeyOptionsError('only ephemeral keys are limited to a patient');
  }
  if (options.requireActor === true && kind !== 'secret' && kind !== 'restricted') {
    // Ephemeral keys carry the actor they were minted for; publishable keys only make tokens.
    throw new KeyOptionsError('only secret and restricted keys can require an actor');
  }
  if (options.actor !== undefined && options.actor !== null) {
    if (kind !== 'ephemeral')
      throw new KeyOptionsError('only ephemeral keys are minted for an actor');
    if (!isActor(options.actor)) throw new KeyOptionsError('not an actor id');
  }
  const allowedIps = validateIps(options);
  const allowedOrigins = validateOrigins(options);
  if (options.expiresInSeconds !== undefined && options.expiresInSeconds !== null) {
    if (!(options.expiresInSeconds > 0)) throw new KeyOptionsError('expiry must be in the future');
  }
  if (options.rateLimit !== undefined && options.rateLimit !== null) {
    if (!Number.isInteger(options.rateLimit) || options.rateLimit < 1) {
      throw new KeyOptionsError('rate limit must be a positive integer');
    }
  }
  return { scopes, allowedIps, allowedOrigins };
}

function validateIps(options: CreateKeyOptions): string[] {
  const list = options.allowedIps ?? [];
  if (list.length === 0) return [];
  if (options.kind !== 'secret' && options.kind !== 'restricted') {
    throw new KeyOptionsError('only secret and restricted keys take an IP allowlist');
  }
  try {
    return validateAllowlist(list);
  } catch (err) {
    throw new KeyOptionsError((err as Error).message);
  }
}

function validateOrigins(options: CreateKeyOptions): string[] {
  const list = options.allowedOrigins ?? [];
  if (list.length === 0) return [];
  if (options.kind !== 'publishable' && options.kind !== 'ephemeral') {
    throw new KeyOptionsError('only publishable and ephemeral keys take allowed origins');
  }
  return list.map((origin) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new KeyOptionsError(`not an origin: ${origin}`);
    }
    if (
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.origin !== origin.replace(/\/$/, '')
    ) {
      throw new KeyOptionsError(`not an origin (scheme://host[:port]): ${origin}`);
    }
    return url.origin;
  });
}

/**
 * Deletes ephemeral keys that expired before `beforeSeconds` (docs/design.md#retention). They
 * bind a patient to a browser session for 15 minutes; past that they only answer
 * `api_key_expired`, and the audit trail keeps their id on every call they made.
 */
export async function purgeExpiredEphemeralKeys(db: Db, beforeSeconds: number): Promise<number> {
  const sql = `DELETE FROM api_keys
    WHERE kind = 'ephemeral' AND expires_at IS NOT NULL AND expires_at < $1`;
  return (await db.run(sql, [beforeSeconds])).changes;
}
