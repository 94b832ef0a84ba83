/**
 * The audit trail's hash chain (docs/design.md#audit-chain). Every row written since migration
 * 0010 carries its place in one chain (`chain_seq`: 1, 2, 3, … with no gap) and `hash`, the
 * SHA-256 of the previous row's hash and this row's canonical encoding. The chain's head (the
 * last place and hash) is one row of `audit_chain`, locked and moved forward in the same
 * transaction as the rows it covers, so writers in any number of processes append in turn and
 * the order of the chain is the order of commits.
 */
import { createHash } from 'node:crypto';
import { PostgresTx } from '../db/pg-transaction.js';
import type { Db } from '../db/types.js';

/**
 * The `audit_log` columns the hash covers, in the order they are encoded: the one place that
 * says what a row's hash proves. A new nullable column is one more name at the end; rows where
 * it is null encode as before (null fields are left out), so their hashes stay valid.
 */
export const CHAINED_FIELDS = [
  'chain_seq',
  'id',
  'at',
  'key_id',
  'operation_id',
  'request_id',
  'client_ip',
  'outcome',
  'object_ids',
  'batch_id',
  'api_version',
  'actor',
] as const;

export type ChainedField = (typeof CHAINED_FIELDS)[number];

/** A row's chained columns as stored or read back (numbers may come back as text). */
export type ChainedRow = { readonly [F in ChainedField]?: string | number | bigint | null };

/**
 * The `hash` before the first chained row: fixed, so a verifier needs nothing from the
 * database to start. SHA-256 of the text `patient-care audit chain genesis`.
 */
export const GENESIS_HASH = createHash('sha256')
  .update('patient-care audit chain genesis')
  .digest('hex');

/**
 * The canonical encoding of a row: a JSON array of `name, value` pairs in `CHAINED_FIELDS`
 * order, every value as text (a BIGINT reads back as a number from SQLite and as text from
 * PostgreSQL; both encode the same), null values left out. JSON escapes make it unambiguous.
 */
export function canonicalRow(row: ChainedRow): string {
  const parts: string[] = [];
  for (const field of CHAINED_FIELDS) {
    const value = row[field];
    if (value === null || value === undefined) continue;
    parts.push(field, String(value));
  }
  return JSON.stringify(parts);
}

/** A row's hash: SHA-256 (hex) of the previous hash, a newline and its canonical encoding. */
export function chainHash(previous: string, row: ChainedRow): string {
  return createHash('sha256')
    .update(`${previous}\n${canonicalRow(row)}`)
    .digest('hex');
}

/** The chain's head: the last place taken and its hash (`GENESIS_HASH` at place 0). */
export interface ChainHead {
  seq: number;
  hash: string;
}

/**
 * Locks the chain's head for the rest of `tx` and reads it. On PostgreSQL `FOR UPDATE`: a
 * second writer (another batch, a write's transaction, another process) waits here until this
 * transaction ends, then reads the head this one left. SQLite transactions here are
 * `BEGIN IMMEDIATE` (one writer at a time), so a plain read is already that. On PostgreSQL it
 * goes with the transaction's `BEGIN` when it is the first statement (one round trip).
 */
export async function lockChainHead(tx: Db): Promise<ChainHead> {
  type Head = { seq: number | string; hash: string };
  const head =
    tx instanceof PostgresTx
      ? (await tx.beginWith<Head>('SELECT seq, hash FROM audit_chain WHERE id = 1 FOR UPDATE'))[0]
      : await tx.get<Head>('SELECT seq, hash FROM audit_chain WHERE id = 1');
  if (head === undefined) throw new Error('the audit chain has no head row (migration 0010)');
  return { seq: Number(head.seq), hash: head.hash };
}

/** The statement that moves the head, with `[seq, hash]` as parameters. */
export const MOVE_CHAIN_HEAD = 'UPDATE audit_chain SET seq = $1, hash = $2 WHERE id = 1';

/**
 * Moves the head only from the place a writer expects it at, `[seq, hash, fromSeq, fromHash]`:
 * it changes one row or none. For a batch chained without reading the head first (its writer
 * knows where its last batch left it): on PostgreSQL the `UPDATE` takes the head's row lock
 * as `lockChainHead` does, waits for any transaction holding it, and then compares with the
 * head that transaction left, so a batch either extends exactly the head it was chained
 * from or changes nothing (`ChainHeadMoved`).
 */
export const MOVE_CHAIN_HEAD_FROM =
  'UPDATE audit_chain SET seq = $1, hash = $2 WHERE id = 1 AND seq = $3 AND hash = $4';

/** The head was not where a batch chained without reading it expected: nothing was stored. */
export class ChainHeadMoved extends Error {
  override readonly name = 'ChainHeadMoved';
  constructor() {
    super('the audit chain head moved since this writer last saw it');
  }
}
