/**
 * Which `Db` values are transaction handles (the `tx` a `transaction` callback gets). Kept
 * beside the interface rather than in it, so wrappers of a `Db` need not implement it: code
 * that must run inside a transaction (a row lock is released at the end of its transaction)
 * opens one only when it is not already in one, instead of nesting a savepoint, which costs
 * two more round trips on PostgreSQL while the lock is held.
 */
import type { Db } from './types.js';

const handles = new WeakSet<Db>();

/** Called by the adapters for each transaction handle they make. */
export function markTransaction(tx: Db): void {
  handles.add(tx);
}

/** Whether `db` is a transaction handle, so its statements already run in one transaction. */
export function isTransaction(db: Db): boolean {
  return handles.has(db);
}
