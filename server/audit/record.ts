import type { Db } from '../db/types.js';
import { newId } from '../ids.js';
import { type AuditEntry, checkAuditEntry } from './entry.js';

/**
 * Appends one audit entry. For writes, pass the write's transaction: the change and its
 * audit row then commit together. Throws `TypeError` on a malformed entry (see
 * `checkAuditEntry`), which aborts that transaction rather than store something unchecked.
 */
export async function recordAudit(tx: Db, entry: AuditEntry): Promise<string> {
  checkAuditEntry(entry);
  return insertAudit(tx, entry);
}

/** Inserts an already checked entry; shared with the batching writer. */
export async function insertAudit(tx: Db, entry: AuditEntry): Promise<string> {
  const at = entry.at ?? Date.now();
  const id = newId('aud', at);
  const objectIds = [...new Set(entry.objectIds)];
  await tx.run(
    `INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      at,
      entry.keyId,
      entry.operationId,
      entry.requestId,
      entry.clientIp,
      entry.outcome,
      JSON.stringify(objectIds),
    ],
  );
  for (const objectId of objectIds) {
    await tx.run('INSERT INTO audit_objects (object_id, audit_id) VALUES ($1, $2)', [objectId, id]);
  }
  return id;
}
