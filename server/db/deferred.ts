import { PostgresTx } from './postgres.js';
import type { Db, SqlParams } from './types.js';

/**
 * A write inside a transaction whose result nobody reads before commit (audit rows, the
 * stored idempotent response, an event row): on PostgreSQL held and sent together with the
 * transaction's other deferred writes as one statement, before the next statement or at
 * commit (see `PostgresTx`); elsewhere run at once. `check` gets the changed row count and
 * throws to roll the transaction back. The write must be a plain `INSERT`, `UPDATE` or
 * `DELETE` without `WITH` or `RETURNING`, and must not need another deferred write's rows
 * (foreign keys aside).
 */
export async function runDeferred(
  tx: Db,
  sql: string,
  params: SqlParams,
  check?: (changes: number) => void,
): Promise<void> {
  if (tx instanceof PostgresTx) {
    tx.defer(sql, params, check);
    return;
  }
  const { changes } = await tx.run(sql, params);
  check?.(changes);
}
