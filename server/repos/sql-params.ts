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
