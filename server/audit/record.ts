import { runDeferred } from '../db/deferred.js';
import type { Db, SqlValue } from '../db/types.js';
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
  if (id === undefined) throw new Error('the audit insert returned no id');
  return id;
}

/** The `audit_log` values of one entry, its batch id aside. */
export interface AuditLogValues {
  id: string;
  at: number;
  keyId: string | null;
  operationId: string;
  requestId: string | null;
  clientIp: string | null;
  outcome: string;
  objectIdsJson: string;
  apiVersion: string | null;
}

/**
 * An already checked entry as the row it is stored as (a new `aud_` id, the time defaulted to
 * now), with its distinct object ids for the batch's object index. Both writers use it: this
 * file's `insertAuditBatch` and the thread writer, which sends such rows to its thread.
 */
export function auditRow(entry: AuditEntry): { row: AuditLogValues; objectIds: string[] } {
  const at = entry.at ?? Date.now();
  const objectIds = [...new Set(entry.objectIds)];
  return {
    row: {
      id: newId('aud', at),
      at,
      keyId: entry.keyId,
      operationId: entry.operationId,
      requestId: entry.requestId,
      clientIp: entry.clientIp,
      outcome: entry.outcome,
      objectIdsJson: JSON.stringify(objectIds),
      apiVersion: entry.apiVersion ?? null,
    },
    objectIds,
  };
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
  const rows: SqlValue[][] = [];
  for (const entry of entries) {
    const { row, objectIds } = auditRow(entry);
    for (const objectId of objectIds) objects.add(objectId);
    rows.push([
      row.id,
      row.at,
      row.keyId,
      row.operationId,
      row.requestId,
      row.clientIp,
      row.outcome,
      row.objectIdsJson,
      batchId,
      row.apiVersion,
    ]);
  }
  await insertRows(
    tx,
    'audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids, batch_id, api_version)',
    rows,
  );
  await insertRows(
    tx,
    'audit_batch_objects (object_id, batch_id)',
    [...objects].map((objectId) => [objectId, batchId]),
  );
  return rows.map((row) => String(row[0]));
}

/** Rows per multi-row INSERT on PostgreSQL (10 columns × 200 stays far below 65,535 binds). */
const ROWS_PER_STATEMENT = 200;

/**
 * Inserts `rows` into `target` (`table (columns)`). PostgreSQL gets multi-row INSERTs, one round
 * trip per 200 rows instead of one per row; SQLite runs in-process, where one cached
 * single-row statement per row is cheaper than compiling a statement for each batch size.
 */
async function insertRows(tx: Db, target: string, rows: readonly SqlValue[][]): Promise<void> {
  if (rows.length === 0) return;
  const width = rows[0]?.length ?? 0;
  const step = tx.dialect === 'postgres' ? ROWS_PER_STATEMENT : 1;
  for (let start = 0; start < rows.length; start += step) {
    const chunk = rows.slice(start, start + step);
    const values = chunk
      .map(
        (_, r) =>
          `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`,
      )
      .join(', ');
    // Nothing reads the rows back in the transaction: on PostgreSQL they go with the
    // transaction's other deferred writes, in one round trip.
    await runDeferred(tx, `INSERT INTO ${target} VALUES ${values}`, chunk.flat());
  }
}
