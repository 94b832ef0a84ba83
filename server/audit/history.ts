import type { Db } from '../db/types.js';
import { sqlLimit } from '../sql/params.js';
import type { AuditOutcome } from './entry.js';

/** One stored audit row. */
export interface AuditRow {
  id: string;
  at: number;
  keyId: string | null;
  operationId: string;
  objectIds: string[];
  requestId: string | null;
  clientIp: string | null;
  outcome: AuditOutcome;
  /** The person or system acting (`PatientCare-Actor`); null when none was named. */
  actor: string | null;
}

const COLUMNS = `a.id, a.at, a.key_id, a.operation_id, a.request_id, a.client_ip, a.outcome,
  a.object_ids, a.actor`;

/**
 * Every access recorded against an object (e.g. a patient), newest first, by index on both
 * paths: rows written before migration 0002 through `audit_objects` (one row per object per
 * entry); later rows through `audit_batch_objects` (one row per object per batch), keeping
 * only the batch's rows whose own `object_ids` name the object. The two sets cannot overlap
 * (a row is indexed one way or the other); `UNION` would fold a duplicate anyway. The price
 * of indexing per batch is paid here: each batch that touched the object has all its rows
 * (up to the writer's `maxBatch`) tested, which suits an occasional investigation query.
 */
export async function accessHistory(
  db: Db,
  objectId: string,
  options: { limit?: number; actor?: string } = {},
): Promise<AuditRow[]> {
  // The one part SQL cannot share: whether a row's object_ids (JSON text) contain $1.
  const names =
    db.dialect === 'postgres'
      ? 'a.object_ids::jsonb ? $1'
      : 'EXISTS (SELECT 1 FROM json_each(a.object_ids) WHERE value = $1)';
  const byActor = options.actor === undefined ? '' : ' AND a.actor = $2';
  const rows = await db.all<Record<string, unknown>>(
    `SELECT ${COLUMNS}
      FROM audit_objects o JOIN audit_log a ON a.id = o.audit_id
      WHERE o.object_id = $1${byActor}
     UNION
     SELECT ${COLUMNS}
      FROM audit_batch_objects b JOIN audit_log a ON a.batch_id = b.batch_id
      WHERE b.object_id = $1 AND ${names}${byActor}
     ORDER BY id DESC LIMIT ${sqlLimit(options.limit ?? 100)}`,
    options.actor === undefined ? [objectId] : [objectId, options.actor],
  );
  return rows.map(toAuditRow);
}

/**
 * Every request one actor made (`PatientCare-Actor`), newest first, whatever it touched: by
 * the partial index `audit_log_actor` (migration 0009), so the cost is the rows returned.
 */
export async function actorHistory(
  db: Db,
  actor: string,
  options: { limit?: number } = {},
): Promise<AuditRow[]> {
  const rows = await db.all<Record<string, unknown>>(
    `SELECT ${COLUMNS} FROM audit_log a WHERE a.actor = $1
     ORDER BY a.id DESC LIMIT ${sqlLimit(options.limit ?? 100)}`,
    [actor],
  );
  return rows.map(toAuditRow);
}

function toAuditRow(row: Record<string, unknown>): AuditRow {
  return {
    id: String(row.id),
    at: Number(row.at),
    keyId: row.key_id === null ? null : String(row.key_id),
    operationId: String(row.operation_id),
    objectIds: JSON.parse(String(row.object_ids)) as string[],
    requestId: row.request_id === null ? null : String(row.request_id),
    clientIp: row.client_ip === null ? null : String(row.client_ip),
    outcome: String(row.outcome) as AuditOutcome,
    actor: row.actor === null || row.actor === undefined ? null : String(row.actor),
  };
}
