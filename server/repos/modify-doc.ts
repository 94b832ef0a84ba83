/**
 * The one way a stored document (patient, appointment, claim, webhook endpoint) is changed
 * after it was inserted: read it under a row lock, decide, write, all in one transaction
 * (docs/design.md#storage). Every repository's update goes through `modifyDoc`; none exports
 * a blind "replace this row" any more, so a handler cannot read outside the lock and write a
 * stale copy back (on PostgreSQL that used to lose acknowledged changes).
 *
 * - PostgreSQL: `SELECT … FOR NO KEY UPDATE` inside the transaction. A second writer of the
 *   same row waits at its own SELECT until the first commits, then reads the committed row
 *   (READ COMMITTED re-reads the newest version of a locked row), so its decision — a state
 *   machine move, a metadata merge — is taken on what it will overwrite. `NO KEY` because the
 *   foreign keys of new appointments and claims take `KEY SHARE` on their patient: a plain
 *   `FOR UPDATE` would make every booking wait for (and block) an update of its patient.
 * - SQLite: the same statement without the clause. A transaction there already holds the
 *   database's only write lock (`BEGIN IMMEDIATE`, and the adapter's FIFO lock within the
 *   process), so the read inside it is the row the write will replace.
 *
 * Why a row lock and not a version column with compare-and-set and retry: measured with
 * `npm run bench:concurrency` (bench/results/concurrency.md, 2026-11-25, load average 15–20
 * on 2 shared cores), 16 clients × 40 read-modify-writes in plain SQL on PostgreSQL. On one
 * row: lock 159 ops/s (median of 3; 102–254), compare-and-set 56 ops/s (48–84) after 1,001
 * retries, each a whole transaction redone; no lock at all 398 ops/s and 1,765 of 1,920
 * writes lost. A row each: lock 988, compare-and-set 924, none 1,069 ops/s, within the
 * run-to-run spread. A retry would also have to re-run the whole request transaction
 * (idempotency record, audit rows, events), where the lock makes the loser simply wait.
 */
import { isTransaction } from '../db/transaction-handles.js';
import type { Db } from '../db/types.js';
import type { DocTable } from '../resources/index.js';
import { parseData } from './rows.js';

/**
 * What the caller decided for the current document: the document to store, or `undefined`
 * to leave the row as it is (nothing changed, or the change does not apply any more).
 * Throwing (a 400 for an illegal move) rolls the caller's transaction back.
 */
export type DocChange<T, C> = (current: T) => C | undefined | Promise<C | undefined>;

/** Writes the decided change over the row (the table's columns and the JSON document). */
type DocWrite<T, C> = (tx: Db, change: C, current: T) => Promise<void>;

/** The outcome of `modifyDoc` for a row that exists. */
export interface Modified<T, C> {
  /** The document as it was, read under the lock. */
  current: T;
  /** What was written, or `undefined` when the change left the row alone. */
  change: C | undefined;
}

/**
 * Reads `id` of `table` in that mode under a row lock, asks `change` what to do with it, and
 * writes the answer with `write`, in `db`'s transaction when `db` is a transaction handle (so
 * the lock lasts until the caller's transaction ends: events and idempotency records written
 * after this call commit together with the change), else in a transaction of its own.
 * Returns `undefined` when there is no such row.
 *
 * @example
 * const done = await modifyDoc<Patient, Patient>(tx, 'patients', id, livemode,
 *   (p) => ({ ...p, metadata: { ...p.metadata, k: 'v' } }), writePatient);
 */
export async function modifyDoc<T, C>(
  db: Db,
  table: DocTable,
  id: string,
  livemode: boolean,
  change: DocChange<T, C>,
  write: DocWrite<T, C>,
): Promise<Modified<T, C> | undefined> {
  const body = async (tx: Db): Promise<Modified<T, C> | undefined> => {
    const row = await tx.get(lockingSelect(table, tx.dialect), [id, livemode]);
    if (row === undefined) return undefined;
    const current = parseData<T>(row);
    const decided = await change(current);
    if (decided !== undefined) await write(tx, decided, current);
    return { current, change: decided };
  };
  // Already in a transaction: run in it (the lock lasts until it ends). A savepoint would
  // add two round trips while the lock is held, and a throw rolls the caller back anyway.
  return isTransaction(db) ? body(db) : db.transaction(body);
}

const statements = new Map<string, string>();

/** The locking read of one table; fixed text per table and dialect (one prepared statement). */
function lockingSelect(table: DocTable, dialect: Db['dialect']): string {
  const key = `${table} ${dialect}`;
  let sql = statements.get(key);
  if (sql === undefined) {
    const lock = dialect === 'postgres' ? ' FOR NO KEY UPDATE' : '';
    sql = `SELECT data FROM ${table} WHERE id = $1 AND livemode = $2${lock}`;
    statements.set(key, sql);
  }
  return sql;
}
