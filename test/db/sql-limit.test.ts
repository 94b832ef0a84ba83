import { describe, expect, it } from 'vitest';
import { openDb } from '../../server/db/open.js';
import { sqlLimit } from '../../server/sql/params.js';

describe('sqlLimit', () => {
  it('writes an integer as its digits', () => {
    expect(sqlLimit(0)).toBe('0');
    expect(sqlLimit(101)).toBe('101');
  });

  it.each([
    ['a fraction', 1.5],
    ['a negative count', -1],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['text smuggled in as a number', '1; DROP TABLE patients' as unknown as number],
  ])('refuses %s, so nothing but digits reaches the SQL text', (_name, value) => {
    expect(() => sqlLimit(value)).toThrow(RangeError);
  });

  it('limits rows like a bound LIMIT would', async () => {
    const db = await openDb('sqlite::memory:');
    try {
      const rows = await db.all(
        `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 50)
          SELECT x FROM n ORDER BY x LIMIT ${sqlLimit(7)}`,
      );
      expect(rows.map((r) => r.x)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await db.close();
    }
  });
});
