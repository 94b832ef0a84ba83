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
  const [id] = await insertAuditBatch(tx, [entry]);
  return id!;
}

/**
 * Inserts already checked entries as one batch, inside `tx`: one `audit_log` row per entry,
 * all with the same new `batch_id`, and one `audit_batch_objects` row per distinct object
 * of the whole batch (so a batch of list reads of the same ten patients indexes ten
 * objects, not ten per entry). Returns the entries' ids. Shared with the batching writer;
 * `thread-writer.ts` runs the same statements on its own connection.
 */
export async function insertAuditBatch(tx: Db, entries: readonly AuditEntry[]): Promise<string[]> {
  const batchId = newId('audb');
  const objects = new Set<string>();
  const ids: string[] = [];
  for (const entry of entries) {
    const at = entry.at ?? Date.now();
    const id = newId('aud', at);
    const objectIds = [...new Set(entry.objectIds)];
    for (const objectId of objectIds) objects.add(objectId);
    await tx.run(
      `INSERT INTO audit_log
        (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids, batch_id)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        at,
        entry.keyId,
        entry.operationId,
        entry.requestId,
        entry.clientIp,
        entry.outcome,
        JSON.stringify(objectIds),
        batchId,
      ],
    );
    ids.push(id);
  }
  for (const objectId of objects) {
    await tx.run('INSERT INTO audit_batch_objects (object_id, batch_id) VALUES ($1, $2)', [
      objectId,
      batchId,
    ]);
  }
  return ids;
}
