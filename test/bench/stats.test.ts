/**
 * The benches' one definition of each statistic (bench/support/stats.ts,
 * docs/design.md#benchmarks): what a results file calls a median or a p99 is this.
 */
import { describe, expect, it } from 'vitest';
import { median, pairedRatios, percentile } from '../../bench/support/stats.js';

describe('median', () => {
  it('is the middle value of an odd count, whatever the order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('is the mean of the two middle values of an even count', () => {
    expect(median([4, 1, 10, 2])).toBe(3);
  });

  it('is NaN for no samples', () => {
    expect(median([])).toBeNaN();
  });
});

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1

  it('is the sample at rank ceil(p·n/100)', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
  });

  it('is always a measured value: p50 of an even count is the lower middle one', () => {
    expect(percentile([4, 1, 10, 2], 50)).toBe(2);
    expect(percentile([4, 1, 10, 2], 95)).toBe(10);
  });

  it('is the smallest sample for a tiny p, and NaN for no samples', () => {
    expect(percentile([7, 3], 0.001)).toBe(3);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('pairedRatios', () => {
  it('divides each run by the same run of the other side, dropping unpaired runs', () => {
    expect(pairedRatios([10, 30, 8], [5, 10])).toEqual([2, 3]);
  });
});
