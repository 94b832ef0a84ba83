/**
 * Key records recently read, so a request with a key seen in the last second does no database
 * read (the lookup was ~6% of the service's busy time on `GET /v1/patients`).
 *
 * - Entries are per `Db` object (a test's database never answers for another's) and keyed by
 *   the secret's hash, never the secret.
 * - An entry serves for at most `KEY_CACHE_TTL_MS` after its read began: a change made by
 *   another process (the keys CLI, a second server on the same PostgreSQL) is seen within
 *   that time. Expiry needs no re-read: callers check `keyState` on every request.
 * - Writes through this process (`forgetCachedKeys`) void every entry at once. A generation
 *   count rather than clearing maps does it, so a read still in flight during a revocation
 *   cannot store the pre-revocation row afterwards, and a write made on a transaction handle
 *   (a different `Db` object from the one requests use) voids the outer handle's entries too.
 * - Only keys that exist are kept: a key just created elsewhere works at once.
 */
import type { Db } from '../db/types.js';
import type { ApiKeyRecord } from './record.js';

/** How long a record read from the database may be used without reading it again. */
export const KEY_CACHE_TTL_MS = 1000;

/** Entries per database; past it the oldest read is dropped. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  readonly record: ApiKeyRecord;
  /** Monotonic time (ms) the read began. */
  readonly readAtMs: number;
  readonly generation: number;
}

/** Bumped by every key write in this process; entries from an older generation are void. */
let generation = 0;
const caches = new WeakMap<Db, Map<string, Entry>>();

/** The cache's clock: monotonic, so a wall-clock step neither stretches nor voids entries. */
export function keyCacheNow(): number {
  return performance.now();
}

/**
 * The record for `hash`: from the cache when read less than `KEY_CACHE_TTL_MS` before `nowMs`
 * and not voided since, else from `read` (kept when it finds a key).
 */
export async function cachedKeyLookup(
  db: Db,
  hash: string,
  nowMs: number,
  read: () => Promise<ApiKeyRecord | undefined>,
): Promise<ApiKeyRecord | undefined> {
  let cache = caches.get(db);
  const hit = cache?.get(hash);
  if (hit !== undefined) {
    const age = nowMs - hit.readAtMs;
    if (hit.generation === generation && age >= 0 && age < KEY_CACHE_TTL_MS) return hit.record;
    cache?.delete(hash);
  }
  const startedIn = generation;
  const record = await read();
  // A write during the read may or may not be in what it returned: keep nothing then.
  if (record === undefined || startedIn !== generation) return record;
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  if (cache.size >= KEY_CACHE_MAX_ENTRIES) {
    // Maps iterate in insertion order and re-reads are re-inserted: the first is the oldest.
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  // Shared between requests from now on, so no caller may change it for the others.
  const frozen = freezeRecord(record);
  cache.set(hash, { record: frozen, readAtMs: nowMs, generation });
  return frozen;
}

/**
 * Voids every cached key record in this process, for every database. Call after any write
 * to `api_keys` that changes or removes an existing row (creating a key needs none: nothing
 * negative is cached). Called on a transaction handle, other requests may still use the old
 * record until up to `KEY_CACHE_TTL_MS` after the commit.
 */
export function forgetCachedKeys(): void {
  generation++;
}

/** Entries held for `db` (tests: the size bound). */
export function cachedKeyCount(db: Db): number {
  return caches.get(db)?.size ?? 0;
}

function freezeRecord(record: ApiKeyRecord): ApiKeyRecord {
  Object.freeze(record.scopes);
  Object.freeze(record.allowedIps);
  Object.freeze(record.allowedOrigins);
  return Object.freeze(record);
}
