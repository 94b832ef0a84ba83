import { runDeferred } from '../db/deferred.js';
import type { Db } from '../db/types.js';
import { newId } from '../ids.js';
import {
  type ChainHead,
  ChainHeadMoved,
  chainHash,
  lockChainHead,
  MOVE_CHAIN_HEAD,
  MOVE_CHAIN_HEAD_FROM,
} from './chain.js';
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
interface AuditLogValues {
  id: string;
  at: number;
  keyId: string | null;
  operationId: string;
  requestId: string | null;
  clientIp: string | null;
  outcome: string;
  objectIdsJson: string;
  apiVersion: string | null;
  actor: string | null;
  /** The row's place in the hash chain and its hash (server/audit/chain.ts). */
  chainSeq: number;
  hash: string;
}

/**
 * An already checked entry as the row it is stored as (a new `aud_` id, the time defaulted to
 * now), with its distinct object ids for the batch's object index. The thread writer
 * (thread-writer.ts) builds the same rows in its thread.
 */
function auditRow(entry: AuditEntry): {
  row: Omit<AuditLogValues, 'chainSeq' | 'hash'>;
  objectIds: string[];
} {
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
      actor: entry.actor ?? null,
    },
    objectIds,
  };
}

/**
 * A batch's rows chained after a head, not yet stored: one `batch_id`, each row's place and
 * hash, the batch's distinct object ids, the head it was chained from and the head storing it
 * leaves. Pure (no statement), so a writer can chain its next batch from this one's `head`
 * before this one commits.
 */
export interface ChainedBatch {
  readonly batchId: string;
  readonly rows: readonly AuditLogValues[];
  readonly objectIds: readonly string[];
  readonly from: ChainHead;
  readonly head: ChainHead;
}

/** Chains already checked entries after `from` (see `ChainedBatch`). */
export function chainBatch(entries: readonly AuditEntry[], from: ChainHead): ChainedBatch {
  const batchId = newId('audb');
  const objects = new Set<string>();
  const rows: AuditLogValues[] = [];
  let { seq, hash } = from;
  for (const entry of entries) {
    const { row, objectIds } = auditRow(entry);
    for (const objectId of objectIds) objects.add(objectId);
    seq += 1;
    // The hash covers the row as stored: its columns by name (`asRecord`), so a column added
    // there is covered once its name is in `CHAINED_FIELDS`.
    hash = chainHash(hash, { ...asRecord(row), batch_id: batchId, chain_seq: seq });
    rows.push({ ...row, chainSeq: seq, hash });
  }
  return { batchId, rows, objectIds: [...objects], from, head: { seq, hash } };
}

/**
 * Inserts already checked entries as one batch, inside `tx`: one `audit_log` row per entry,
 * all with the same new `batch_id`, and one `audit_batch_objects` row per distinct object
 * of the whole batch (so a batch of list reads of the same ten patients indexes ten
 * objects, not ten per entry). The rows take the next places of the hash chain, whose head
 * is locked until `tx` ends and moved past them (server/audit/chain.ts). Returns the entries'
 * ids. Shared with the batching writer; `thread-writer.ts` runs the same statements on its
 * own connection.
 */
export async function insertAuditBatch(tx: Db, entries: readonly AuditEntry[]): Promise<string[]> {
  const batch = await insertAuditBatchLocked(tx, entries);
  return batch.rows.map((row) => row.id);
}

/**
 * `insertAuditBatch`, returning the batch as chained. `turn`: for a writer with several
 * batches in flight, the head is asked for only once `turn.after` settles (the batch before
 * it holds the lock, or failed), and `turn.locked` is called once this one holds it, or
 * failed to, so batches take their places in the chain in the order they were taken from the
 * queue.
 */
export async function insertAuditBatchLocked(
  tx: Db,
  entries: readonly AuditEntry[],
  turn?: { after: Promise<void>; locked: () => void },
): Promise<ChainedBatch> {
  let head: ChainHead;
  try {
    await turn?.after;
    head = await lockChainHead(tx);
  } finally {
    turn?.locked();
  }
  const batch = chainBatch(entries, head);
  if (batch.rows.length > 0) {
    await runDeferred(tx, MOVE_CHAIN_HEAD, [batch.head.seq, batch.head.hash]);
  }
  await insertRows(tx, batch);
  return batch;
}

/**
 * Stores a batch chained from the head its writer expects (`chainBatch`), without reading
 * the head first: the head moves from `batch.from` to `batch.head` or the transaction fails
 * with `ChainHeadMoved` and stores nothing (`MOVE_CHAIN_HEAD_FROM`). On PostgreSQL, with
 * nothing else in `tx`, the whole transaction is one statement that commits by itself: one
 * round trip instead of three (`BEGIN` with the head's lock, the writes, `COMMIT`).
 */
export async function insertChainedBatch(tx: Db, batch: ChainedBatch): Promise<void> {
  if (batch.rows.length > 0) {
    await runDeferred(
      tx,
      MOVE_CHAIN_HEAD_FROM,
      [batch.head.seq, batch.head.hash, batch.from.seq, batch.from.hash],
      { changes: 1, otherwise: () => new ChainHeadMoved() },
    );
  }
  await insertRows(tx, batch);
}

/** The batch's `audit_log` and `audit_batch_objects` rows, held or run in `tx`. */
async function insertRows(tx: Db, { batchId, rows, objectIds }: ChainedBatch): Promise<void> {
  if (tx.dialect === 'postgres') {
    await insertBatchAsJson(tx, rows, objectIds, batchId);
  } else {
    // SQLite runs in-process: one cached single-row statement per row is cheaper than
    // compiling a statement for each batch size.
    for (const row of rows) {
      await tx.run(
        `INSERT INTO audit_log (${LOG_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        [
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
          row.actor,
          row.chainSeq,
          row.hash,
        ],
      );
    }
    for (const objectId of objectIds) {
      await tx.run('INSERT INTO audit_batch_objects (object_id, batch_id) VALUES ($1, $2)', [
        objectId,
        batchId,
      ]);
    }
  }
}

const LOG_COLUMNS =
  'id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids, batch_id, api_version, actor, chain_seq, hash';

/**
 * PostgreSQL: the batch's rows as one JSON parameter per table, unpacked by `json_to_recordset`
 * and `json_array_elements_text`. The texts are the same for every batch size, so they are
 * prepared once, and the rows cost one native `JSON.stringify` instead of ten bound parameters
 * a row in a multi-row `VALUES` list, whose placeholders were renumbered each time the batch
 * joined the transaction's other held writes. Service CPU per request under `bench:server`,
 * three alternating pairs: (b) 53.4-53.8 -> 48.6-51.1 µs, (b′) 77.4-83.2 -> 75.1-80.5 µs.
 * Nothing reads the rows back in the transaction: they go with its other held writes, in one
 * round trip.
 */
async function insertBatchAsJson(
  tx: Db,
  rows: readonly AuditLogValues[],
  objectIds: readonly string[],
  batchId: string,
): Promise<void> {
  await runDeferred(
    tx,
    `INSERT INTO audit_log (${LOG_COLUMNS})
     SELECT r.id, r.at, r.key_id, r.operation_id, r.request_id, r.client_ip, r.outcome,
       r.object_ids, $2, r.api_version, r.actor, r.chain_seq, r.hash
     FROM json_to_recordset($1::json) AS r(id TEXT, at BIGINT, key_id TEXT, operation_id TEXT,
       request_id TEXT, client_ip TEXT, outcome TEXT, object_ids TEXT, api_version TEXT,
       actor TEXT, chain_seq BIGINT, hash TEXT)`,
    [JSON.stringify(rows.map(asRecord)), batchId],
  );
  if (objectIds.length === 0) return;
  await runDeferred(
    tx,
    `INSERT INTO audit_batch_objects (object_id, batch_id)
     SELECT value, $2 FROM json_array_elements_text($1::json)`,
    [JSON.stringify(objectIds), batchId],
  );
}

/** A row under the column names `json_to_recordset` maps by. */
function asRecord(
  row: Omit<AuditLogValues, 'chainSeq' | 'hash'> & Partial<AuditLogValues>,
): Record<string, string | number | null> {
  return {
    id: row.id,
    at: row.at,
    key_id: row.keyId,
    operation_id: row.operationId,
    request_id: row.requestId,
    client_ip: row.clientIp,
    outcome: row.outcome,
    object_ids: row.objectIdsJson,
    api_version: row.apiVersion,
    actor: row.actor,
    chain_seq: row.chainSeq ?? null,
    hash: row.hash ?? null,
  };
}
