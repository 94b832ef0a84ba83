/**
 * The statement combiner: a transaction's held writes, or several one-statement transactions
 * of a turn, rewritten as one SQL text of data-modifying `WITH` queries, with their
 * parameters in order and their row counts checked. Pure: nothing here sends a statement
 * (`pg-held-writes.ts` and `pg-turn-commits.ts` do).
 */
import { shiftPlaceholders } from './placeholders.js';
import type { ExpectedChanges, SqlParams } from './types.js';

/** A statement of a transaction whose result nobody waits for: sent with the next one. */
export interface Deferred {
  sql: string;
  params: SqlParams | undefined;
  expected: ExpectedChanges | undefined;
}

/** The SQLSTATE of the division by zero a failed in-statement check raises (see `combine`). */
export const CHECK_FAILED = '22012';

/**
 * Deferred writes as one statement: each an `INSERT`/`UPDATE`/`DELETE` without its own
 * `WITH` or `RETURNING`, becoming a CTE that returns a row per changed row, with its
 * placeholders renumbered; the outer `SELECT` counts each. All of them run on one snapshot and
 * do not see each other's rows, except through foreign keys, which are checked at the end of
 * the statement — so a batch never holds a write that reads another of the same batch.
 *
 * `checked`'s expected row count is compared in the outer `SELECT`: a different count divides
 * by zero (SQLSTATE 22012, `CHECK_FAILED`), which fails the whole statement, so none of its
 * writes commits even when it runs as its own transaction. Plain SQL, no function to install.
 */
export function combine(
  batch: readonly Deferred[],
  checked?: Deferred,
): { sql: string; params: SqlParams } {
  const [only] = batch;
  if (batch.length === 1 && only !== undefined && checked === undefined) {
    return { sql: only.sql, params: only.params ?? [] };
  }
  const sql = combinedText(`d\u0001${heldShape(batch, checked)}`, () => {
    const { ctes, counts, check } = heldQueries(batch, checked, 'd', 0);
    const columns = counts.map((count, i) => `${count} AS c${i}`);
    if (check !== undefined) columns.push(`${check} AS checked`);
    return `WITH ${ctes.join(', ')} SELECT ${columns.join(', ')}`;
  });
  const params: SqlParams[number][] = [];
  heldParams(batch, checked, params);
  return { sql, params };
}

/**
 * What a transaction's held writes look like as one statement: their texts, parameter counts
 * and which one is checked. Held writes of one shape make the same combined text.
 */
export function heldShape(batch: readonly Deferred[], checked: Deferred | undefined): string {
  return batch
    .map((statement) => {
      const mark = statement === checked ? '!' : '';
      return `${mark}${statement.params?.length ?? 0}:${statement.sql}`;
    })
    .join('\u0000');
}

/**
 * Combined statement texts by shape (and, for a turn's transactions, their count), made once.
 * Rebuilding each with its placeholders renumbered, then hashing the new text for its
 * statement name, took about 11 µs of the service's time per create under bench:server's POST
 * (`--cpu-prof`, 218 ms over 20,000 creates); the shape and the lookup take about 2 µs. Bounded
 * as the prepared statements they name are: by the code's statement shapes, times
 * `MAX_COMBINED`.
 */
const combinedTexts = new Map<string, string>();

function combinedText(key: string, build: () => string): string {
  let text = combinedTexts.get(key);
  if (text === undefined) {
    text = build();
    combinedTexts.set(key, text);
  }
  return text;
}

/**
 * A transaction's held writes as `WITH` queries named `${prefix}${i}`, each returning a row
 * per changed row, their placeholders numbered on after the `first` parameters before them;
 * each one's row count; and, for `checked`, the division by zero that fails the whole
 * statement when its count is not the expected one. `heldParams` gives the parameters, in the
 * same order.
 */
export function heldQueries(
  batch: readonly Deferred[],
  checked: Deferred | undefined,
  prefix: string,
  first: number,
): { ctes: string[]; counts: string[]; check: string | undefined; next: number } {
  const ctes: string[] = [];
  const counts: string[] = [];
  let offset = first;
  for (const [i, statement] of batch.entries()) {
    ctes.push(`${prefix}${i} AS (${shiftPlaceholders(statement.sql, offset)} RETURNING 1)`);
    counts.push(`CAST((SELECT COUNT(*) FROM ${prefix}${i}) AS INTEGER)`);
    offset += statement.params?.length ?? 0;
  }
  let check: string | undefined;
  if (checked?.expected !== undefined) {
    offset += 1;
    const count = `(SELECT COUNT(*) FROM ${prefix}${batch.indexOf(checked)})`;
    check = `1 / (CASE WHEN ${count} = CAST($${offset} AS BIGINT) THEN 1 ELSE 0 END)`;
  }
  return { ctes, counts, check, next: offset };
}

/** Appends the parameters of `heldQueries`' text to `params`: each write's, then the count. */
export function heldParams(
  batch: readonly Deferred[],
  checked: Deferred | undefined,
  params: SqlParams[number][],
): void {
  for (const statement of batch) params.push(...(statement.params ?? []));
  if (checked?.expected !== undefined) params.push(checked.expected.changes);
}

/** Which of a batch's expected counts its one statement checks itself (see `combine`). */
export function checkedInStatement(batch: readonly Deferred[]): Deferred | undefined {
  const expecting = batch.filter((statement) => statement.expected !== undefined);
  return expecting.length === 1 ? expecting[0] : undefined;
}

export function checkCounts(batch: readonly Deferred[], counts: readonly number[]): void {
  for (const [i, { expected }] of batch.entries()) {
    if (expected !== undefined && counts[i] !== expected.changes) throw expected.otherwise();
  }
}

/**
 * One transaction's held writes as `TurnCommits` combines them with others of its turn.
 */
export interface HeldTransaction {
  readonly batch: readonly Deferred[];
  /** The write its statement checks itself (`checkedInStatement`). */
  readonly checked: Deferred | undefined;
  /** `heldShape`: only transactions of one shape share a statement. */
  readonly shape: string;
}

/**
 * Several transactions' held writes as one statement: transaction `j`'s writes become the
 * `WITH` queries `t{j}_d{i}` (`heldQueries`, placeholders numbered on), and a row per
 * transaction gives its counts and, for its one expected count, the same division by zero.
 */
export function combineTransactions(part: readonly HeldTransaction[]): {
  sql: string;
  params: SqlParams;
} {
  const sql = combinedText(`t${part.length}\u0001${part[0]?.shape}`, () => {
    const ctes: string[] = [];
    const rows: string[] = [];
    let next = 0;
    for (const [j, commit] of part.entries()) {
      const held = heldQueries(commit.batch, commit.checked, `t${j}_d`, next);
      next = held.next;
      ctes.push(...held.ctes);
      rows.push(
        `SELECT ${j} AS pc_tx, ARRAY[${held.counts.join(', ')}] AS counts, ${held.check ?? '1'} AS checked`,
      );
    }
    return `WITH ${ctes.join(', ')} ${rows.join(' UNION ALL ')}`;
  });
  const params: SqlParams[number][] = [];
  for (const commit of part) heldParams(commit.batch, commit.checked, params);
  return { sql, params };
}
