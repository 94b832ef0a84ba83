/**
 * The SQL of one list or search criterion, from a column and a value: what a resource's
 * filter table (server/resources/, docs/design.md#resources) names as its `op`. Values travel
 * only as bound parameters, so the SQL text (which may be logged) never holds them.
 */
import type { Dialect, SqlValue } from '../db/types.js';
import type { SqlParams } from './params.js';
import { prefixUpperBound } from './text-match.js';

/** Bounds on a number column (`created`, an appointment's start: unix seconds), as in `created[gt]=…&created[lte]=…`. */
export interface CreatedRange {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** The SQL text of `column` compared with `value`, or `undefined` for no condition. */
export type Operator<V> = (
  column: string,
  value: V,
  p: SqlParams,
  dialect: Dialect,
) => string | undefined;

/** `column = value`. */
export const equals: Operator<SqlValue> = (column, value, p) => `${column} = ${p.add(value)}`;

/** `column` in a set of values; an empty set matches nothing. */
export const oneOf: Operator<readonly string[]> = (column, values, p) =>
  values.length === 0 ? '1 = 0' : `${column} IN (${values.map((v) => p.add(v)).join(', ')})`;

/** `column` within a range of numbers (each bound optional). */
export const within: Operator<CreatedRange> = (column, range, p) => {
  const terms: string[] = [];
  if (range.gt !== undefined) terms.push(`${column} > ${p.add(range.gt)}`);
  if (range.gte !== undefined) terms.push(`${column} >= ${p.add(range.gte)}`);
  if (range.lt !== undefined) terms.push(`${column} < ${p.add(range.lt)}`);
  if (range.lte !== undefined) terms.push(`${column} <= ${p.add(range.lte)}`);
  return terms.length === 0 ? undefined : terms.join(' AND ');
};

/**
 * `column` starts with `prefix`, as a byte-wise range (`>= prefix AND < bound`) an ordinary
 * B-tree index answers, unlike `LIKE` under most collations.
 */
export const startsWith: Operator<string> = (column, prefix, p) => {
  const lower = `${column} >= ${p.add(prefix)}`;
  const upper = prefixUpperBound(prefix);
  return upper === undefined ? lower : `${lower} AND ${column} < ${p.add(upper)}`;
};

/**
 * A top-level field of the stored JSON document equal to `value`: for a field without a
 * column of its own, so it narrows the other criteria rather than being an index range.
 */
export const jsonFieldEquals: Operator<string> = (field, value, p, dialect) => {
  const read =
    dialect === 'postgres' ? `(data::json ->> '${field}')` : `json_extract(data, '$.${field}')`;
  return `${read} = ${p.add(value)}`;
};

/** One document by its id (FHIR's `_id`). */
export const BY_ID = { column: 'id', op: equals } as const;

/** The `status` column every stateful resource keeps, and its filter. */
export const STATUS = {
  column: { name: 'status', value: (doc: { status: string }) => doc.status },
  criterion: { column: 'status', op: equals },
} as const;
