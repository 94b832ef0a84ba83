/**
 * One statement sent on a pool or client: named prepared statement or unnamed, parameters
 * converted to what `pg` sends, driver errors mapped (`toDbError`).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { toDbError } from './pg-errors.js';
import { isUnnamed, type Queryable } from './pg-pool.js';
import type { SqlParams } from './types.js';

const names = new Map<string, string>();

/** A stable statement name per SQL text (PostgreSQL limits names to 63 bytes). */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `pc_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

// Only plain DML is prepared by name; utility statements (SET, DDL, advisory locks in
// migrations) run unnamed so they never occupy a slot in a connection's statement cache.
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** Sends `sql` on `on`; a driver error is rethrown as `toDbError` makes it. */
export async function query<T>(
  on: Queryable,
  sql: string,
  params?: SqlParams,
): Promise<pg.QueryResult> {
  const values = (params ?? []).map(toPg);
  const config: pg.QueryConfig =
    PREPARABLE.test(sql) && !isUnnamed(on)
      ? { name: statementName(sql), text: sql, values }
      : { text: sql, values };
  try {
    return await on.query<T & pg.QueryResultRow>(config);
  } catch (err) {
    throw toDbError(err);
  }
}

function toPg(value: SqlParams[number]): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}
