import { describe, expect, it } from 'vitest';
import {
  placeholderList,
  shiftPlaceholders,
  translatePlaceholders,
} from '../../server/db/placeholders.js';
import { isId, newId } from '../../server/ids.js';
import { idTime, ulid } from '../../server/ulid.js';

describe('ids', () => {
  it('are prefix + 26 Crockford base32 characters carrying the time', () => {
    const id = newId('pat', 1_800_000_000_123);
    expect(id).toMatch(/^pat_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isId('pat', id)).toBe(true);
    expect(isId('appt', id)).toBe(false);
    expect(idTime(id)).toBeGreaterThanOrEqual(1_800_000_000_123);
  });

  it('sort in creation order, even within one millisecond or when the clock steps back', () => {
    const now = Date.now() + 10_000;
    const ids = [...Array.from({ length: 1000 }, () => ulid(now)), ulid(now - 5000), ulid(now + 1)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw a new random part each millisecond, across refills of the random pool', () => {
    // Later than any time the other tests used: each id gets its own, fresh millisecond.
    const start = 1_900_000_000_000;
    // 1,000 milliseconds: the 4 KiB pool (256 random parts) is refilled several times.
    const ids = Array.from({ length: 1000 }, (_, i) => ulid(start + i));
    expect(ids.map((id) => idTime(id))).toEqual(ids.map((_, i) => start + i));
    expect(new Set(ids.map((id) => id.slice(10))).size).toBe(ids.length);
  });
});

describe('placeholder translation for SQLite', () => {
  it('maps $n to ? in order, repeats included, skipping quotes and comments', () => {
    expect(translatePlaceholders('SELECT $2, $1, $2')).toEqual({
      sql: 'SELECT ?, ?, ?',
      order: [1, 0, 1],
    });
    expect(translatePlaceholders(`SELECT '$1', "$2", $3 -- $4\n/* $5 */ , $10`)).toEqual({
      sql: `SELECT '$1', "$2", ? -- $4\n/* $5 */ , ?`,
      order: [2, 9],
    });
    expect(translatePlaceholders("SELECT 'it''s $1', $1").order).toEqual([0]);
  });

  it('builds an IN list of $n placeholders from any first position', () => {
    expect(placeholderList(1)).toBe('$1');
    expect(placeholderList(3)).toBe('$1, $2, $3');
    expect(placeholderList(2, 4)).toBe('$4, $5');
    expect(() => placeholderList(0)).toThrow(RangeError);
  });

  it('moves every placeholder up by an offset, repeated and many-digit ones too', () => {
    expect(shiftPlaceholders('a = $1 AND b = $2 AND c = $1', 2)).toBe(
      'a = $3 AND b = $4 AND c = $3',
    );
    expect(shiftPlaceholders('VALUES ($9, $10)', 91)).toBe('VALUES ($100, $101)');
    expect(shiftPlaceholders('a = $1', 0)).toBe('a = $1');
  });
});
