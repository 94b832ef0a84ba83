import type { Db } from '../db/types.js';
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

/**
 * Replaces a stored claim and its schedule. With `expectedStatus`, only if the stored status
 * is still that one (a compare-and-set, so two workers cannot both move the same claim).
 */
export async function updateClaim<T extends ClaimDoc>(
  tx: Db,
  doc: T,
  options: { nextActionAt?: number | null; expectedStatus?: string } = {},
): Promise<boolean> {
  const params = [
    doc.updated ?? doc.created,
    doc.status,
    options.nextActionAt ?? null,
    JSON.stringify(doc),
    doc.id,
    doc.livemode,
  ];
  const guard = options.expectedStatus === undefined ? '' : ' AND status = $7';
  if (options.expectedStatus !== undefined) params.push(options.expectedStatus);
  const result = await tx.run(
    `UPDATE claims SET updated = $1, status = $2, next_action_at = $3, data = $4
      WHERE id = $5 AND livemode = $6${guard}`,
    params,
  );
  return result.changes > 0;
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
