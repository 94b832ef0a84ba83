/**
 * Who uses which API version (docs/design.md#versioning): from the audit log, per key, the
 * requests served in each version and when the last one was. What the owner reads before
 * retiring a version. Only ids, dates and counts: no PHI (the audit log holds none).
 */
import type { Db } from '../db/types.js';

/** One key's use of one version. */
export interface VersionUse {
  /** The key, or null for audited requests without one. */
  keyId: string | null;
  /** The version, or null where it was not recorded (rows before migration 0006). */
  apiVersion: string | null;
  /** Distinct requests (a request can leave several audit rows). */
  requests: number;
  /** Milliseconds since the epoch of the newest such request. */
  lastAt: number;
}

/**
 * Every (key, version) pair with requests at or after `sinceMs` (default: the whole log),
 * ordered by key, then newest version first, unrecorded last. A scan of the log's window:
 * an occasional owner's query, not a request path.
 */
export async function versionUsage(
  db: Db,
  options: { sinceMs?: number } = {},
): Promise<VersionUse[]> {
  const rows = await db.all<Record<string, unknown>>(
    `SELECT key_id, api_version, COUNT(DISTINCT COALESCE(request_id, id)) AS requests,
        MAX(at) AS last_at
      FROM audit_log
      WHERE at >= $1
      GROUP BY key_id, api_version`,
    [options.sinceMs ?? 0],
  );
  const uses = rows.map((row) => ({
    keyId: row.key_id === null ? null : String(row.key_id),
    apiVersion: row.api_version === null ? null : String(row.api_version),
    requests: Number(row.requests),
    lastAt: Number(row.last_at),
  }));
  // Sorted here, not in SQL: NULL ordering and collation differ between the two databases.
  return uses.sort(
    (a, b) =>
      compare(a.keyId ?? '~', b.keyId ?? '~') || compare(b.apiVersion ?? '', a.apiVersion ?? ''),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
