/**
 * The statement combiner on its own (`server/db/pg-combine.ts`): the SQL texts and parameter
 * lists it makes from held writes, without a database. What PostgreSQL does with them is
 * covered by pg-deferred.test.ts and group-commit.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  checkCounts,
  checkedInStatement,
  combine,
  combineTransactions,
  type Deferred,
  type HeldTransaction,
  heldParams,
  heldQueries,
  heldShape,
} from '../../server/db/pg-combine.js';
import type { SqlParams } from '../../server/db/types.js';

class Refused extends Error {}

function write(sql: string, params?: SqlParams, changes?: number): Deferred {
  return {
    sql,
    params,
    expected: changes === undefined ? undefined : { changes, otherwise: () => new Refused(sql) },
  };
}

const INSERT_A = 'INSERT INTO a (id) VALUES ($1)';
const INSERT_B = 'INSERT INTO b (id, a_id) VALUES ($1, $2)';
const UPSERT_K = 'UPDATE k SET response = $1 WHERE key = $2 AND response IS NULL';
const count = (name: string) => `CAST((SELECT COUNT(*) FROM ${name}) AS INTEGER)`;
const check = (name: string, placeholder: string) =>
  `1 / (CASE WHEN (SELECT COUNT(*) FROM ${name}) = CAST(${placeholder} AS BIGINT) THEN 1 ELSE 0 END)`;

describe('combine', () => {
  const a = write(INSERT_A, ['a1']);
  const b = write(INSERT_B, ['b1', 'a1']);
  const k = write(UPSERT_K, ['{"ok":true}', 'key1'], 1);
  const bare = write('DELETE FROM c WHERE expired');
  const twice = write('UPDATE d SET n = $1 WHERE m = $1', [5]);
  const cases: Array<{
    name: string;
    batch: Deferred[];
    checked?: Deferred;
    sql: string;
    params: SqlParams;
  }> = [
    { name: 'one write, nothing checked: as it is', batch: [a], sql: INSERT_A, params: ['a1'] },
    {
      name: 'one write without parameters: an empty list',
      batch: [bare],
      sql: 'DELETE FROM c WHERE expired',
      params: [],
    },
    {
      name: 'two writes: a WITH query each, the second one’s placeholders moved up',
      batch: [a, b],
      sql:
        'WITH d0 AS (INSERT INTO a (id) VALUES ($1) RETURNING 1), ' +
        'd1 AS (INSERT INTO b (id, a_id) VALUES ($2, $3) RETURNING 1) ' +
        `SELECT ${count('d0')} AS c0, ${count('d1')} AS c1`,
      params: ['a1', 'b1', 'a1'],
    },
    {
      name: 'one checked write: its count compared in the statement, the expected count last',
      batch: [k],
      checked: k,
      sql:
        'WITH d0 AS (UPDATE k SET response = $1 WHERE key = $2 AND response IS NULL RETURNING 1) ' +
        `SELECT ${count('d0')} AS c0, ${check('d0', '$3')} AS checked`,
      params: ['{"ok":true}', 'key1', 1],
    },
    {
      name: 'a write without parameters before the checked one takes no placeholders',
      batch: [bare, k, a],
      checked: k,
      sql:
        'WITH d0 AS (DELETE FROM c WHERE expired RETURNING 1), ' +
        'd1 AS (UPDATE k SET response = $1 WHERE key = $2 AND response IS NULL RETURNING 1), ' +
        'd2 AS (INSERT INTO a (id) VALUES ($3) RETURNING 1) ' +
        `SELECT ${count('d0')} AS c0, ${count('d1')} AS c1, ${count('d2')} AS c2, ${check('d1', '$4')} AS checked`,
      params: ['{"ok":true}', 'key1', 'a1', 1],
    },
    {
      name: 'a placeholder used twice moves up both times',
      batch: [a, twice],
      sql:
        'WITH d0 AS (INSERT INTO a (id) VALUES ($1) RETURNING 1), ' +
        'd1 AS (UPDATE d SET n = $2 WHERE m = $2 RETURNING 1) ' +
        `SELECT ${count('d0')} AS c0, ${count('d1')} AS c1`,
      params: ['a1', 5],
    },
  ];
  it.each(cases)('$name', ({ batch, checked, sql, params }) => {
    expect(combine(batch, checked)).toEqual({ sql, params });
  });

  it('gives held writes of one shape the same text, each with its own parameters', () => {
    const first = combine([write(INSERT_A, ['x']), write(INSERT_B, ['y', 'x'])]);
    const second = combine([write(INSERT_A, ['p']), write(INSERT_B, ['q', 'p'])]);
    expect(second.sql).toBe(first.sql);
    expect(first.params).toEqual(['x', 'y', 'x']);
    expect(second.params).toEqual(['p', 'q', 'p']);
  });
});

describe('heldShape', () => {
  const a = write(INSERT_A, ['a1']);
  const k = write(UPSERT_K, ['r', 'key'], 1);
  const cases: Array<{ name: string; batch: Deferred[]; checked?: Deferred; want: string }> = [
    { name: 'parameter count and text', batch: [a], want: `1:${INSERT_A}` },
    {
      name: 'the checked write marked, writes apart by NUL',
      batch: [a, k],
      checked: k,
      want: `1:${INSERT_A}\u0000!2:${UPSERT_K}`,
    },
    {
      name: 'a write without parameters counts none',
      batch: [write('DELETE FROM c')],
      want: '0:DELETE FROM c',
    },
  ];
  it.each(cases)('$name', ({ batch, checked, want }) => {
    expect(heldShape(batch, checked)).toBe(want);
  });

  it('tells apart the same writes with a different one checked', () => {
    const k2 = write(UPSERT_K, ['r', 'key'], 1);
    expect(heldShape([k, k2], k)).not.toBe(heldShape([k, k2], k2));
  });
});

describe('heldQueries and heldParams', () => {
  it.each([
    {
      name: 'numbered on after the parameters before them, under a prefix',
      batch: [write(INSERT_A, ['a1']), write(INSERT_B, ['b1', 'a1'])],
      checked: undefined,
      prefix: 't1_d',
      first: 3,
      want: {
        ctes: [
          't1_d0 AS (INSERT INTO a (id) VALUES ($4) RETURNING 1)',
          't1_d1 AS (INSERT INTO b (id, a_id) VALUES ($5, $6) RETURNING 1)',
        ],
        counts: [count('t1_d0'), count('t1_d1')],
        check: undefined,
        next: 6,
      },
      params: ['a1', 'b1', 'a1'],
    },
    {
      name: 'the check takes the placeholder after the writes’',
      batch: [write(UPSERT_K, ['r', 'key'], 1)],
      checked: 'first',
      prefix: 'd',
      first: 0,
      want: {
        ctes: [
          'd0 AS (UPDATE k SET response = $1 WHERE key = $2 AND response IS NULL RETURNING 1)',
        ],
        counts: [count('d0')],
        check: check('d0', '$3'),
        next: 3,
      },
      params: ['r', 'key', 1],
    },
  ])('$name', ({ batch, checked, prefix, first, want, params }) => {
    const checkedWrite = checked === 'first' ? batch[0] : undefined;
    expect(heldQueries(batch, checkedWrite, prefix, first)).toEqual(want);
    const out: SqlParams[number][] = [];
    heldParams(batch, checkedWrite, out);
    expect(out).toEqual(params);
  });
});

describe('checkedInStatement', () => {
  const plain = write(INSERT_A, ['a']);
  const one = write(UPSERT_K, ['r', 'k'], 1);
  const other = write(UPSERT_K, ['r', 'l'], 1);
  it.each([
    { name: 'nothing expected: none', batch: [plain], want: undefined },
    { name: 'one expected count: that write', batch: [plain, one], want: one },
    { name: 'several: none (checked after the statement)', batch: [one, other], want: undefined },
  ])('$name', ({ batch, want }) => {
    expect(checkedInStatement(batch)).toBe(want);
  });
});

describe('checkCounts', () => {
  const batch = [write(INSERT_A, ['a']), write(UPSERT_K, ['r', 'k'], 1)];
  it.each([
    { name: 'expected count met', counts: [3, 1], refused: false },
    { name: 'expected count missed', counts: [1, 0], refused: true },
    { name: 'a count missing', counts: [1], refused: true },
  ])('$name', ({ counts, refused }) => {
    const run = () => checkCounts(batch, counts);
    if (refused) expect(run).toThrow(Refused);
    else expect(run).not.toThrow();
  });
});

describe('combineTransactions', () => {
  function transaction(batch: Deferred[]): HeldTransaction {
    const checked = checkedInStatement(batch);
    return { batch, checked, shape: heldShape(batch, checked) };
  }
  it.each([
    {
      name: 'each transaction its WITH queries and a row: its counts and its own check',
      part: [
        transaction([write(INSERT_A, ['a1']), write(UPSERT_K, ['r1', 'k1'], 1)]),
        transaction([write(INSERT_A, ['a2']), write(UPSERT_K, ['r2', 'k2'], 1)]),
      ],
      sql:
        'WITH t0_d0 AS (INSERT INTO a (id) VALUES ($1) RETURNING 1), ' +
        't0_d1 AS (UPDATE k SET response = $2 WHERE key = $3 AND response IS NULL RETURNING 1), ' +
        't1_d0 AS (INSERT INTO a (id) VALUES ($5) RETURNING 1), ' +
        't1_d1 AS (UPDATE k SET response = $6 WHERE key = $7 AND response IS NULL RETURNING 1) ' +
        `SELECT 0 AS pc_tx, ARRAY[${count('t0_d0')}, ${count('t0_d1')}] AS counts, ${check('t0_d1', '$4')} AS checked` +
        ' UNION ALL ' +
        `SELECT 1 AS pc_tx, ARRAY[${count('t1_d0')}, ${count('t1_d1')}] AS counts, ${check('t1_d1', '$8')} AS checked`,
      params: ['a1', 'r1', 'k1', 1, 'a2', 'r2', 'k2', 1],
    },
    {
      name: 'nothing checked: 1 in its place',
      part: [
        transaction([write(INSERT_B, ['b1', 'a1'])]),
        transaction([write(INSERT_B, ['b2', 'a2'])]),
        transaction([write(INSERT_B, ['b3', 'a3'])]),
      ],
      sql:
        'WITH t0_d0 AS (INSERT INTO b (id, a_id) VALUES ($1, $2) RETURNING 1), ' +
        't1_d0 AS (INSERT INTO b (id, a_id) VALUES ($3, $4) RETURNING 1), ' +
        't2_d0 AS (INSERT INTO b (id, a_id) VALUES ($5, $6) RETURNING 1) ' +
        `SELECT 0 AS pc_tx, ARRAY[${count('t0_d0')}] AS counts, 1 AS checked UNION ALL ` +
        `SELECT 1 AS pc_tx, ARRAY[${count('t1_d0')}] AS counts, 1 AS checked UNION ALL ` +
        `SELECT 2 AS pc_tx, ARRAY[${count('t2_d0')}] AS counts, 1 AS checked`,
      params: ['b1', 'a1', 'b2', 'a2', 'b3', 'a3'],
    },
  ])('$name', ({ part, sql, params }) => {
    expect(combineTransactions(part)).toEqual({ sql, params });
  });
});
