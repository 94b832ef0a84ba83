/**
 * `secondsToDateTime` computes the civil date itself (for speed); it must write exactly what
 * `Date#toISOString` writes, at the edges (leap days, century rules, the 9999 bound) and
 * across the whole range.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DATE_TIME_SECONDS, secondsToDateTime } from '../../server/domain/date-time.js';

const viaDate = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;

describe('secondsToDateTime', () => {
  it('writes the known instants', () => {
    expect(secondsToDateTime(0)).toBe('1970-01-01T00:00:00Z');
    expect(secondsToDateTime(1793782800)).toBe('2026-11-04T09:00:00Z');
    expect(secondsToDateTime(951782400)).toBe('2000-02-29T00:00:00Z');
    expect(secondsToDateTime(4107542399)).toBe('2100-02-28T23:59:59Z');
    expect(secondsToDateTime(4107542400)).toBe('2100-03-01T00:00:00Z');
    expect(secondsToDateTime(MAX_DATE_TIME_SECONDS)).toBe('9999-12-31T23:59:59Z');
  });

  it('equals toISOString on the last second of every day around each month end of 2024–2025', () => {
    for (let day = 19_723; day < 20_454; day++) {
      for (const s of [day * 86_400, day * 86_400 + 86_399])
        expect(secondsToDateTime(s)).toBe(viaDate(s));
    }
  });

  it('equals toISOString on 100,000 instants spread over 1970..9999 (seeded)', () => {
    let seed = 0x2026_1201;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let mismatches = 0;
    for (let i = 0; i < 100_000; i++) {
      const s = Math.floor(next() * (MAX_DATE_TIME_SECONDS + 1));
      if (secondsToDateTime(s) !== viaDate(s)) mismatches++;
    }
    expect(mismatches).toBe(0);
  });

  it('outside whole seconds in 1970..9999 it writes what Date writes', () => {
    for (const s of [-1, 1.5, MAX_DATE_TIME_SECONDS + 1])
      expect(secondsToDateTime(s)).toBe(viaDate(s));
  });
});
