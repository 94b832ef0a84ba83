/**
 * The statistics the benches report, one definition each (docs/design.md#benchmarks): the
 * `median` of repeated runs or rounds, and the nearest-rank `percentile` of one run's many
 * samples. autocannon's own p50/p99 (its latency histogram) are reported as it gives them.
 */

/**
 * The median: the middle value of the sorted sample, or the mean of the two middle values
 * when the count is even; NaN for an empty sample.
 */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The nearest-rank `p`th percentile (0 < p ≤ 100): the smallest sample that at least p% of
 * the samples are at or below, so always a measured value; NaN for an empty sample.
 */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/**
 * Each run's `a[i] / b[i]`: two measurements made in the same run saw the same machine load,
 * so on a shared machine their ratio is steadier than a ratio of the two medians.
 */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  return a.flatMap((x, i) => (b[i] === undefined ? [] : [x / b[i]]));
}
