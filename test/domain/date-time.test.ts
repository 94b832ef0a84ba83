/**
 * `secondsToDateTime` computes the civil date itself (for speed); it must write exactly what
 * `Date#toISOString` writes, at the edges (leap days, century rules, the 9999 bound) and
 * across the whole range.
 */
import { describe, expect, it } from 'vitest';
import {
  isWritableSeconds,
  MAX_DATE_TIME_SECONDS,
  secondsToDateTime,
  storedSecondsOut,
} from '../../server/domain/date-time.js';

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

  it('refuses what has no RFC 3339 text instead of writing an extended year', () => {
    for (const s of [-1, 1.5, MAX_DATE_TIME_SECONDS + 1, 1_795_747_516_000, Number.NaN])
      expect(() => secondsToDateTime(s)).toThrow(RangeError);
  });
});

describe('storedSecondsOut (what an earlier release may have stored)', () => {
  it('writes a time in range as secondsToDateTime does', () => {
    expect(storedSecondsOut(1793782800)).toBe('2026-11-04T09:00:00Z');
    expect(storedSecondsOut(MAX_DATE_TIME_SECONDS)).toBe('9999-12-31T23:59:59Z');
  });

  it('clamps milliseconds-style and larger times to the last writable instant', () => {
    // 1795747516000 s is year 58874 (toISOString wrote "+058874-…"); 9e12 s is past Date's
    // range (toISOString threw); 2^63 and 1e300 are what a JSON integer may hold.
    for (const s of [
      MAX_DATE_TIME_SECONDS + 1,
      1_795_747_516_000,
      9_000_000_000_000,
      Number.MAX_SAFE_INTEGER,
      2 ** 63,
      1e300,
      Number.POSITIVE_INFINITY,
    ])
      expect(storedSecondsOut(s)).toBe('9999-12-31T23:59:59Z');
  });

  it('clamps below 1970 to the epoch and cuts fractions to the second', () => {
    expect(storedSecondsOut(-1)).toBe('1970-01-01T00:00:00Z');
    expect(storedSecondsOut(Number.NaN)).toBe('1970-01-01T00:00:00Z');
    expect(storedSecondsOut(1793782800.9)).toBe('2026-11-04T09:00:00Z');
  });

  it('isWritableSeconds draws the same line', () => {
    expect(isWritableSeconds(0)).toBe(true);
    expect(isWritableSeconds(MAX_DATE_TIME_SECONDS)).toBe(true);
    for (const s of [-1, 0.5, MAX_DATE_TIME_SECONDS + 1, '1', null])
      expect(isWritableSeconds(s)).toBe(false);
  });
});
