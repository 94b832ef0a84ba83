/**
 * Rate limits (docs/design.md#rate-limits): a token bucket per key in the database (so every server
 * process shares it), holding one second's worth of requests; each process leases tokens from it in
 * small batches. Every response carries the `RateLimit-*` headers; an empty bucket answers
 * 429 with `Retry-After`.
 */
import type { FastifyReply } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
import type { TakeTokenResult } from '../repos/rate-limits.js';
import type { AuthenticatedKey } from './auth.js';
import type { HttpStore } from './store.js';

/** Requests per second a key may make: its own override, else its mode's default. */
export function keyRate(key: AuthenticatedKey, limits: RateLimitConfig): number {
  if (key.rateLimit !== null && key.rateLimit > 0) return key.rateLimit;
  return key.livemode ? limits.liveRps : limits.testRps;
}

/** Whether this reply already carries rate-limit headers. */
export function hasRateLimitHeaders(reply: FastifyReply): boolean {
  return reply.hasHeader('ratelimit-limit');
}

/**
 * The most tokens a process leases from a bucket at once: a twentieth (5%) of it, so a lease
 * is refilled in 50 ms. Limits under 40/s lease 1, i.e. every request asks the database.
 */
export function leaseSize(rps: number): number {
  return Math.max(1, Math.floor(rps / LEASE_FRACTION));
}

const LEASE_FRACTION = 20;

/** Buckets with a lease kept per database; past it the least recently leased is dropped. */
const MAX_LEASED_BUCKETS = 10_000;

/** This process's lease on one bucket. */
interface Lease {
  rps: number;
  takenAtMs: number;
  /** How long the lease may be spent: the time the bucket takes to refill a full lease (≤ 50 ms). */
  lifeMs: number;
  /** Tokens the lease was granted (0: none yet, or the last take was refused). */
  granted: number;
  /** Leased tokens not yet spent; given back with the next take once the lease is over. */
  left: number;
  /** The shared bucket's tokens right after the lease was taken. */
  bucketAfter: number;
  /** The database take in flight for this bucket; requests finding no token wait for it. */
  pending: Promise<TakeTokenResult> | undefined;
  /** Requests waiting for `pending`. */
  waiting: number;
}

// Per Db object, so separate databases (tests, several apps in one process) never share.
const leasesByDb = new WeakMap<Db, Map<string, Lease>>();

/**
 * Takes one token from `bucketKey`, sets the headers, and throws `rate_limited` when the bucket
 * is empty.
 *
 * Most requests spend a token of this process's lease and touch no database: the lease is
 * taken from the shared bucket in one statement (`nextLeaseSize` tokens or what is left),
 * spent here, and over once older than a full lease's refill time; its unspent tokens go back
 * to the bucket in the statement that takes the next lease (docs/design.md#rate-limits).
 * Tokens never given back (a restart, a bucket this process stops using) count as spent, so
 * all processes together never admit more than the bucket granted.
 * Returns nothing when served from the lease, a promise when it asked the database.
 */
export function takeRequestToken(
  db: Db,
  store: Pick<HttpStore, 'takeToken'>,
  reply: FastifyReply,
  bucketKey: string,
  rps: number,
  nowMs: number,
): Promise<void> | undefined {
  const size = leaseSize(rps);
  if (size === 1) return takeOne(db, store, reply, bucketKey, rps, nowMs);
  const lease = leasesOf(db).get(bucketKey);
  if (lease !== undefined && spend(lease, reply, rps, nowMs)) return undefined;
  return renewLease(db, store, reply, bucketKey, rps, nowMs, size);
}

/**
 * Tokens to ask for in the next lease of a process, at most `max`: twice what it spent in its
 * last lease, or twice that lease when it ran out before its time, and at least one for every
 * request waiting on it. Sized by demand, a process holds about a tenth of a second of its own
 * traffic, not 5% of the bucket: N processes leasing 5% each would hold the whole bucket at
 * N = 20, and refuse requests far under the limit.
 */
function nextLeaseSize(
  last: { granted: number; left: number; takenAtMs: number; lifeMs: number },
  waiting: number,
  nowMs: number,
  max: number,
): number {
  const spent = last.granted - last.left;
  const ranOut = last.left < 1 && nowMs - last.takenAtMs < last.lifeMs;
  const wanted = ranOut ? 2 * last.granted : 2 * spent;
  return Math.min(max, Math.max(1, wanted, waiting + 1));
}

/** No lease: one token straight from the bucket, as every request did before leases. */
async function takeOne(
  db: Db,
  store: Pick<HttpStore, 'takeToken'>,
  reply: FastifyReply,
  bucketKey: string,
  rps: number,
  nowMs: number,
): Promise<void> {
  const result = await store.takeToken(db, {
    bucketKey,
    capacity: rps,
    refillPerSecond: rps,
    nowMs,
  });
  answerFromBucket(reply, result);
}

/** Most times a request waits for another's lease before taking one itself. */
const MAX_WAITS = 8;

async function renewLease(
  db: Db,
  store: Pick<HttpStore, 'takeToken'>,
  reply: FastifyReply,
  bucketKey: string,
  rps: number,
  nowMs: number,
  size: number,
): Promise<void> {
  const leases = leasesOf(db);
  let lease = leases.get(bucketKey);
  // One lease take in flight per bucket serves the requests arriving meanwhile. A request that
  // cannot be served from it (the take failed or was refused, or it waited MAX_WAITS times)
  // asks the bucket for its own single token, never for a lease: N waiters each leasing 5%
  // would drain the bucket in one go and refuse a process far below its limit (20 waiters
  // empty any bucket), which is how a failed take once turned into dozens of 429s.
  for (let waits = 0; lease?.pending !== undefined; waits++) {
    if (waits === MAX_WAITS) return takeOne(db, store, reply, bucketKey, rps, nowMs);
    lease.waiting += 1;
    const other = await lease.pending.catch(() => undefined);
    lease.waiting -= 1;
    if (other === undefined || !other.allowed) {
      return takeOne(db, store, reply, bucketKey, rps, nowMs);
    }
    if (spend(lease, reply, rps, nowMs)) return;
  }
  if (lease === undefined) {
    lease = {
      rps,
      takenAtMs: 0,
      lifeMs: 0,
      granted: 0,
      left: 0,
      bucketAfter: 0,
      pending: undefined,
      waiting: 0,
    };
  }
  // Re-inserted so the map's order is least recently leased first.
  leases.delete(bucketKey);
  leases.set(bucketKey, lease);
  if (leases.size > MAX_LEASED_BUCKETS) {
    const oldest = leases.keys().next();
    if (!oldest.done) leases.delete(oldest.value);
  }
  // A lease at another rate (the key's limit changed) says nothing of this one's demand.
  const count =
    lease.rps === rps
      ? nextLeaseSize(lease, lease.waiting, nowMs, size)
      : Math.min(size, lease.waiting + 1);
  // The old lease's unspent tokens go back with this take, and are never spent here again
  // (if the take fails they are lost: counted as spent, as before).
  const returned = Math.max(0, Math.floor(lease.left));
  lease.left = 0;
  const pending = store.takeToken(db, {
    bucketKey,
    capacity: rps,
    refillPerSecond: rps,
    nowMs,
    count,
    returned,
  });
  lease.pending = pending;
  let result: TakeTokenResult;
  try {
    result = await pending;
  } finally {
    if (lease.pending === pending) lease.pending = undefined;
  }
  lease.rps = rps;
  lease.granted = result.granted;
  if (result.granted > 0) {
    lease.takenAtMs = nowMs;
    lease.lifeMs = (size * 1000) / rps;
    lease.left = result.granted - 1;
    lease.bucketAfter = result.tokens;
    setHeaders(reply, rps, result.tokens + lease.left);
    return;
  }
  answerFromBucket(reply, result);
}

/** Spends a token of `lease` if it has one, is fresh and is for this rate. */
function spend(lease: Lease, reply: FastifyReply, rps: number, nowMs: number): boolean {
  if (lease.left < 1 || lease.rps !== rps) return false;
  // A request may read the clock a little before the one that took the lease; a clock that
  // jumped back further does not keep a lease alive. An old lease's tokens stay in `left`
  // until the next take gives them back.
  const age = nowMs - lease.takenAtMs;
  if (age >= lease.lifeMs || age <= -lease.lifeMs) return false;
  lease.left -= 1;
  setHeaders(reply, rps, lease.bucketAfter + lease.left);
  return true;
}

function leasesOf(db: Db): Map<string, Lease> {
  let leases = leasesByDb.get(db);
  if (leases === undefined) {
    leases = new Map();
    leasesByDb.set(db, leases);
  }
  return leases;
}

/**
 * Headers of a request admitted from a lease (so `rps` ≥ 40), `tokens` being the bucket's as
 * the lease was taken plus the lease's unspent ones.
 */
function setHeaders(reply: FastifyReply, rps: number, tokens: number): void {
  reply.header('RateLimit-Limit', String(rps));
  reply.header('RateLimit-Remaining', String(Math.max(0, Math.floor(tokens))));
  reply.header('RateLimit-Reset', String(Math.max(0, Math.ceil((rps - tokens) / rps))));
}

/** Headers from the bucket's own figures; throws `rate_limited` when it refused. */
export function answerFromBucket(reply: FastifyReply, result: TakeTokenResult): void {
  const reset = Math.max(0, Math.ceil(result.resetSeconds));
  reply.header('RateLimit-Limit', String(result.limit));
  reply.header('RateLimit-Remaining', String(Math.max(0, Math.floor(result.remaining))));
  reply.header('RateLimit-Reset', String(reset));
  if (!result.allowed) {
    const retryAfter = Math.max(1, Math.ceil(result.retryAfterSeconds));
    throw new ApiError('rate_limited', { headers: { 'Retry-After': String(retryAfter) } });
  }
}

/** The bucket of a key. */
export function keyBucket(key: AuthenticatedKey): string {
  return `key:${key.id}`;
}

/** The bucket of requests that carry no usable key, per client address. */
export function anonymousBucket(clientIp: string): string {
  return `ip:${clientIp}`;
}
