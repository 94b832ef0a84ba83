/**
 * The health probes' rate limit (docs/design.md#rate-limits): a token bucket per client address
 * kept in this process's memory. A probe must answer while the database is down (issue 31: a
 * database-backed bucket turned every probe into a 500 during an outage, so an orchestrator
 * would restart healthy processes), and it costs too little to need the cross-process limit:
 * N processes admit at most N times the rate, of a request that reads nothing or one row.
 */
import { bucketFigures, type TakeTokenResult } from '../repos/rate-limits.js';

/** Buckets kept at once; past it the least recently used is forgotten (it would be full). */
const MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  atMs: number;
}

/** One process's in-memory buckets. */
export class MemoryBuckets {
  private readonly buckets = new Map<string, Bucket>();

  /** Refills `key`'s bucket (capacity and rate `rps`) to `nowMs` and takes one token if it has one. */
  take(key: string, rps: number, nowMs: number): TakeTokenResult {
    const found = this.buckets.get(key);
    const elapsedMs = found === undefined ? 0 : Math.max(0, nowMs - found.atMs);
    const filled = Math.min(
      rps,
      found === undefined ? rps : found.tokens + (elapsedMs * rps) / 1000,
    );
    const allowed = filled >= 1;
    const tokens = allowed ? filled - 1 : filled;
    this.buckets.delete(key);
    this.buckets.set(key, { tokens, atMs: nowMs });
    if (this.buckets.size > MAX_BUCKETS) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
    return { ...bucketFigures(tokens, allowed, rps, rps), granted: allowed ? 1 : 0, tokens };
  }
}
