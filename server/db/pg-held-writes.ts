/** Sending one transaction's held writes (`PostgresTx`'s deferred statements). */
import type pg from 'pg';
import { DbError } from './errors.js';
import {
  CHECK_FAILED,
  checkCounts,
  checkedInStatement,
  combine,
  type Deferred,
} from './pg-combine.js';
import { query } from './pg-query.js';

/** Sends a transaction's deferred statements on its connection, one round trip, and checks them. */
export async function sendDeferred(
  client: pg.PoolClient,
  batch: readonly Deferred[],
): Promise<void> {
  // One expected count is checked by the statement itself; several are checked below.
  const inStatement = checkedInStatement(batch);
  const { sql, params } = combine(batch, inStatement);
  let result: pg.QueryResult;
  try {
    result = await query(client, sql, params);
  } catch (err) {
    if (inStatement?.expected && err instanceof DbError && err.driverCode === CHECK_FAILED) {
      throw inStatement.expected.otherwise();
    }
    throw err;
  }
  const counts =
    batch.length === 1
      ? [result.rowCount ?? 0]
      : batch.map((_, i) => Number((result.rows[0] as Record<string, unknown>)[`c${i}`]));
  checkCounts(batch, counts);
}
