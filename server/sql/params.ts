import type { SqlValue } from '../db/types.js';

/**
 * Collects values for a query built piece by piece and hands out their `$n` placeholders,
 * so optional filters never splice user input into SQL text.
 * @example const p = new SqlParams(); const where = `livemode = ${p.add(1)}`; db.all(sql, p.values)
 */
export class SqlParams {
  readonly values: SqlValue[] = [];

  /** Appends `value` and returns its placeholder. */
  add(value: SqlValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A row count written into the SQL text (`LIMIT 11`) instead of bound (`LIMIT $n`). SQLite
 * plans with a bound LIMIT's value, so every new binding of it expires the prepared statement
 * and the next run parses and plans the query again (seen in `perf`: a list query spent about a
 * third of its time re-preparing). An integer is all that can reach the text: anything else
 * throws.
 * @example `... ORDER BY id DESC LIMIT ${sqlLimit(limit + 1)}`
 */
export function sqlLimit(count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`LIMIT must be a non-negative integer, got ${String(count)}`);
  }
  return String(count);
}
