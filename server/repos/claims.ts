/**
 * The claim query the test-mode clearinghouse simulator runs (server/webhooks/clearinghouse.ts);
 * a claim's own reads and writes go through the generic records repository with
 * server/resources/claim.ts.
 */
import type { Db } from '../db/types.js';

/** Test claims that have waited `delayMs` in a status the simulator moves out of. */
export async function dueTestClaims(
  db: Db,
  nowMs: number,
  delayMs: number,
  limit: number,
): Promise<Array<{ id: string; status: string }>> {
  // `updated` is in whole seconds: a claim is due once the end of its second is `delayMs` old.
  const cutoff = Math.floor((nowMs - delayMs + 1) / 1000) - 1;
  return db.all<{ id: string; status: string }>(
    `SELECT id, status FROM claims WHERE livemode = $1 AND status IN ('submitted', 'accepted')
      AND updated <= $2 ORDER BY updated, id LIMIT $3`,
    [false, cutoff, limit],
  );
}
