/**
 * The account's pinned API version (docs/design.md#versioning): what a request without a
 * `PatientCare-Version` header is served in. Pinned to the latest when the first key is made;
 * changed only on purpose (`npm run keys -- version DATE`), as an upgrade of the account.
 */
import type { Db } from '../db/types.js';

/** Pins the account to `version` unless it is pinned already (the first key's creation). */
export async function pinAccountIfUnpinned(db: Db, version: string, nowMs: number): Promise<void> {
  await db.run(
    `INSERT INTO account (id, api_version, pinned_at) VALUES (1, $1, $2)
      ON CONFLICT (id) DO NOTHING`,
    [version, Math.floor(nowMs / 1000)],
  );
  forget(db);
}

/** The pinned version, or null before the first key. */
export async function accountApiVersion(db: Db): Promise<string | null> {
  const row = await db.get<{ api_version: string }>('SELECT api_version FROM account WHERE id = 1');
  return row === undefined ? null : String(row.api_version);
}

/** Pins read in the last second, per database (a request must not pay a read for it). */
const cached = new WeakMap<Db, { version: string | null; readAtMs: number }>();
/**
 * The one read under way per database: every request that finds the cache cold shares it
 * (single flight), so a burst after the entry expires costs one query, not one per request.
 */
const inFlight = new WeakMap<Db, Promise<string | null>>();
const PIN_CACHE_TTL_MS = 1000;

/** Forgets the cached pin and any read under way (it may have begun before a write). */
function forget(db: Db): void {
  cached.delete(db);
  inFlight.delete(db);
}

/**
 * The pinned version for a request: at once from this process's cache when read less than a
 * second ago (another process's change is seen within that time, this process's at once),
 * else the promise of the one read under way for this database.
 */
export function cachedAccountApiVersion(
  db: Db,
  nowMs: number,
): string | null | Promise<string | null> {
  const hit = cached.get(db);
  if (hit !== undefined && nowMs - hit.readAtMs >= 0 && nowMs - hit.readAtMs < PIN_CACHE_TTL_MS) {
    return hit.version;
  }
  const running = inFlight.get(db);
  if (running !== undefined) return running;
  const read = accountApiVersion(db).then(
    (version) => {
      // A write while the read ran forgot this read: its answer may be stale, so not kept.
      if (inFlight.get(db) === read) {
        cached.set(db, { version, readAtMs: nowMs });
        inFlight.delete(db);
      }
      return version;
    },
    (error: unknown) => {
      if (inFlight.get(db) === read) inFlight.delete(db);
      throw error;
    },
  );
  inFlight.set(db, read);
  return read;
}

/**
 * The pin this process read last, however long ago, without reading; null when it has read
 * none since it started or since its own last write. For answers that must not wait on or
 * fail with the database: a health probe's, and an early refusal's when the read failed.
 */
export function lastReadAccountApiVersion(db: Db): string | null {
  return cached.get(db)?.version ?? null;
}

/** Moves the pin; keys read from now on (and within a second, cached ones) use it. */
export async function setAccountApiVersion(db: Db, version: string, nowMs: number): Promise<void> {
  await db.run(
    `INSERT INTO account (id, api_version, pinned_at) VALUES (1, $1, $2)
      ON CONFLICT (id) DO UPDATE SET api_version = $1, pinned_at = $2`,
    [version, Math.floor(nowMs / 1000)],
  );
  forget(db);
}
