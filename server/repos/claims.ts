import type { Db } from '../db/types.js';
import { type DocChange, type Modified, modifyDoc } from './modify-doc.js';
import { type ListParams, type Page, paginate } from './pagination.js';
import { getDoc, parseData } from './rows.js';
import { sqlLimit } from './sql-params.js';

/** The fields of a stored claim this repository indexes; the rest is kept as given. */
export interface ClaimDoc {
  id: string;
  livemode: boolean;
  created: number;
  updated?: number;
  patient: string;
  appointment?: string | null;
  status: string;
}

export interface ClaimListParams extends ListParams {
  livemode: boolean;
  patient?: string;
  status?: string;
}

/**
 * Stores a new claim. `nextActionAt` (ms) is when the simulated clearinghouse should next
 * look at it; `null` when nothing is scheduled.
 */
export async function insertClaim<T extends ClaimDoc>(
  tx: Db,
  doc: T,
  nextActionAt: number | null = null,
): Promise<T> {
  await tx.run(
    `INSERT INTO claims (id, livemode, created, updated, patient_id, appointment_id, status,
      next_action_at, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      doc.id,
      doc.livemode,
      doc.created,
      doc.updated ?? doc.created,
      doc.patient,
      doc.appointment ?? null,
      doc.status,
      nextActionAt,
      JSON.stringify(doc),
    ],
  );
  return doc;
}

/** A claim to store and when the clearinghouse should next look at it (ms, or `null`). */
interface ClaimChange<T> {
  doc: T;
  nextActionAt: number | null;
}

/**
 * Changes a stored claim and its schedule through `modifyDoc`: `change` gets the claim read
 * under a row lock (so two clearinghouse processes cannot both move it from one status) and
 * returns what to store, or `undefined` to leave it. `undefined` when there is none.
 */
export function modifyClaim<T extends ClaimDoc>(
  db: Db,
  id: string,
  livemode: boolean,
  change: DocChange<T, ClaimChange<T>>,
): Promise<Modified<T, ClaimChange<T>> | undefined> {
  return modifyDoc<T, ClaimChange<T>>(db, 'claims', id, livemode, change, writeClaim);
}

async function writeClaim(tx: Db, { doc, nextActionAt }: ClaimChange<ClaimDoc>): Promise<void> {
  await tx.run(
    `UPDATE claims SET updated = $1, status = $2, next_action_at = $3, data = $4
      WHERE id = $5 AND livemode = $6`,
    [
      doc.updated ?? doc.created,
      doc.status,
      nextActionAt,
      JSON.stringify(doc),
      doc.id,
      doc.livemode,
    ],
  );
}

/** The stored claim, or `undefined`. */
export async function getClaim<T = ClaimDoc>(
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  return getDoc<T>(db, 'claims', id, livemode);
}

/** Claims newest first, optionally for one patient and/or in one status. */
export function listClaims<T = ClaimDoc>(db: Db, params: ClaimListParams): Promise<Page<T>> {
  return paginate(db, {
    from: 'claims',
    select: 'data',
    filters: [
      (p) => `livemode = ${p.add(params.livemode)}`,
      (p) => (params.patient === undefined ? undefined : `patient_id = ${p.add(params.patient)}`),
      (p) => (params.status === undefined ? undefined : `status = ${p.add(params.status)}`),
    ],
    list: params,
    map: parseData<T>,
  });
}

/** Claims whose scheduled action is due at `nowMs`, oldest schedule first. */
export async function dueClaims<T = ClaimDoc>(db: Db, nowMs: number, limit = 50): Promise<T[]> {
  const rows = await db.all(
    `SELECT data FROM claims WHERE next_action_at IS NOT NULL AND next_action_at <= $1
      ORDER BY next_action_at LIMIT ${sqlLimit(limit)}`,
    [nowMs],
  );
  return rows.map(parseData<T>);
}

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
