import { PostgresTx } from './pg-transaction.js';
import type { Db, ExpectedChanges, SqlParams } from './types.js';

/**
 * A write inside a transaction whose result nobody reads before commit (audit rows, the
 * stored idempotent response, an event row): on PostgreSQL held and sent together with the
 * transaction's other deferred writes as one statement, before the next statement or at
 * commit (see `PostgresTx`); elsewhere run at once. `expected`: the rows it must change, else
 * the transaction fails with its error (on PostgreSQL checked inside the held statement, so a
 * transaction needs no `BEGIN` for it). The write must be a plain `INSERT`, `UPDATE` or
 * `DELETE` without `WITH` or `RETURNING`, and must not need another deferred write's rows
 * (foreign keys aside).
 */
export async function runDeferred(
  tx: Db,
  sql: string,
  params: SqlParams,
  expected?: ExpectedChanges,
): Promise<void> {
  if (tx instanceof PostgresTx) {
    tx.defer(sql, params, expected);
    return;
  }
  const { changes } = await tx.run(sql, params);
  if (expected !== undefined && changes !== expected.changes) throw expected.otherwise();
}
