/**
 * `npm run audit -- verify`: walks the hash chain (server/audit/chain.ts) from the genesis to
 * the head and says where it first breaks. Page by page in chain order, so memory stays
 * constant however long the trail.
 */
import type { Db } from '../db/types.js';
import { CHAINED_FIELDS, type ChainedRow, chainHash, GENESIS_HASH } from './chain.js';

/** Where the chain breaks: the row named (null when the break is at the head), and why. */
export interface ChainBreak {
  rowId: string | null;
  /** The place in the chain where it breaks. */
  seq: number | null;
  reason: string;
}

export interface VerifyResult {
  /** Chained rows walked. */
  rows: number;
  /** Rows stored before migration 0010, outside the chain. */
  legacyRows: number;
  head: { seq: number; hash: string } | null;
  /** Undefined when the trail is intact. */
  broken?: ChainBreak;
}

const COLUMNS = [...new Set([...CHAINED_FIELDS, 'id', 'chain_seq', 'hash'])].join(', ');

/** Walks the whole chain, `pageSize` rows at a time; stops at the first break. */
export async function verifyChain(
  db: Db,
  options: { pageSize?: number } = {},
): Promise<VerifyResult> {
  const pageSize = options.pageSize ?? 5000;
  const head = await db.get<{
    seq: number | string;
    hash: string;
    legacy_rows: number | string;
    legacy_last_id: string | null;
  }>('SELECT seq, hash, legacy_rows, legacy_last_id FROM audit_chain WHERE id = 1');
  if (head === undefined) {
    return {
      rows: 0,
      legacyRows: 0,
      head: null,
      broken: { rowId: null, seq: null, reason: 'the chain head (audit_chain) is missing' },
    };
  }
  const headSeq = Number(head.seq);
  const legacyRows = Number(head.legacy_rows);
  const result = (rows: number, broken?: ChainBreak): VerifyResult => ({
    rows,
    legacyRows,
    head: { seq: headSeq, hash: head.hash },
    ...(broken ? { broken } : {}),
  });

  let seq = 0;
  let hash = GENESIS_HASH;
  let lastId: string | null = null;
  let walked = 0;
  for (;;) {
    const page = await db.all<ChainedRow & { id: string; hash: string | null }>(
      `SELECT ${COLUMNS} FROM audit_log WHERE chain_seq > $1 ORDER BY chain_seq LIMIT ${pageSize}`,
      [seq],
    );
    for (const row of page) {
      const at = Number(row.chain_seq);
      const name = { rowId: row.id, seq: at };
      if (at > headSeq) {
        return result(walked, { ...name, reason: `it lies past the head (${headSeq}): inserted` });
      }
      if (at !== seq + 1) {
        const missing = at - seq - 1;
        return result(walked, {
          ...name,
          reason: `${missing} row(s) before it are missing (places ${seq + 1}–${at - 1}): deleted`,
        });
      }
      if (chainHash(hash, row) !== row.hash) {
        return result(walked, {
          ...name,
          reason: 'its hash does not match its fields and the hash before it: edited or inserted',
        });
      }
      seq = at;
      hash = row.hash;
      lastId = row.id;
      walked++;
    }
    if (page.length < pageSize) break;
  }
  if (seq !== headSeq) {
    return result(walked, {
      rowId: lastId,
      seq,
      reason: `the chain ends here, but its head is at ${headSeq}: the last ${headSeq - seq} row(s) were deleted`,
    });
  }
  if (hash !== head.hash) {
    return result(walked, {
      rowId: lastId,
      seq,
      reason: 'the head (audit_chain) does not hold the last row’s hash: edited',
    });
  }
  // A row repeating a place (the unique index dropped) is skipped by the walk: count them.
  const counts = await db.get<{ chained: number | string; legacy: number | string }>(
    `SELECT COUNT(chain_seq) AS chained, COUNT(*) - COUNT(chain_seq) AS legacy FROM audit_log`,
  );
  if (Number(counts?.chained) !== walked) {
    const twin = await db.get<{ id: string; chain_seq: number | string }>(
      `SELECT a.id, a.chain_seq FROM audit_log a
        WHERE a.chain_seq IN (SELECT chain_seq FROM audit_log GROUP BY chain_seq HAVING COUNT(*) > 1)
        ORDER BY a.chain_seq, a.id DESC LIMIT 1`,
    );
    return result(walked, {
      rowId: twin?.id ?? null,
      seq: twin === undefined ? null : Number(twin.chain_seq),
      reason: 'it repeats a place in the chain: inserted',
    });
  }
  if (Number(counts?.legacy) !== legacyRows) {
    const stray = await db.get<{ id: string }>(
      `SELECT id FROM audit_log WHERE chain_seq IS NULL AND id > COALESCE($1, '')
        ORDER BY id LIMIT 1`,
      [head.legacy_last_id],
    );
    return result(walked, {
      rowId: stray?.id ?? null,
      seq: null,
      reason:
        Number(counts?.legacy) > legacyRows
          ? 'it has no place in the chain and is not one of the rows from before it: inserted'
          : `${legacyRows - Number(counts?.legacy)} row(s) from before the chain are missing: deleted`,
    });
  }
  return result(walked);
}
