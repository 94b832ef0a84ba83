/**
 * Rate limits (api.md §7): a token bucket per key in the database (so every server process
 * shares it), holding one second's worth of requests. Every response carries the
 * `RateLimit-*` headers; an empty bucket answers 429 with `Retry-After`.
 */
import type { FastifyReply } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
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
 * Takes one token from `bucketKey`, sets the headers, and throws `rate_limited` when the bucket
 * is empty.
 */
export async function takeRequestToken(
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
