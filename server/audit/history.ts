import type { Db } from '../db/types.js';
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
}

/** Every access recorded against an object (e.g. a patient), newest first. */
export async function accessHistory(
  db: Db,
  objectId: string,
  options: { limit?: number } = {},
): Promise<AuditRow[]> {
  const rows = await db.all<Record<string, unknown>>(
    `SELECT a.* FROM audit_objects o JOIN audit_log a ON a.id = o.audit_id
      WHERE o.object_id = $1 ORDER BY a.id DESC LIMIT $2`,
    [objectId, options.limit ?? 100],
  );
  return rows.map((row) => ({
    id: String(row.id),
    at: Number(row.at),
    keyId: row.key_id === null ? null : String(row.key_id),
    operationId: String(row.operation_id),
    objectIds: JSON.parse(String(row.object_ids)) as string[],
    requestId: row.request_id === null ? null : String(row.request_id),
    clientIp: row.client_ip === null ? null : String(row.client_ip),
    outcome: String(row.outcome) as AuditOutcome,
  }));
}
