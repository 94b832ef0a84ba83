import { expect, it } from 'vitest';
import { bucketFigures, takeToken } from '../../server/repos/rate-limits.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const T0 = 1_800_000_000_000;

await describeEachDatabase('rate-limit buckets', (dialect) => {
  const ctx = useTestDb(dialect);
  const take = (nowMs: number, bucketKey = 'key:a', capacity = 3, refillPerSecond = 1) =>
    takeToken(ctx.db, { bucketKey, capacity, refillPerSecond, nowMs });

  it('spends the burst, refuses, then refills with time', async () => {
    expect(await take(T0)).toEqual({
      allowed: true,
      granted: 1,
      limit: 3,
      tokens: 2,
      remaining: 2,
      resetSeconds: 1,
      retryAfterSeconds: 0,
    });
    expect((await take(T0)).remaining).toBe(1);
    expect((await take(T0)).remaining).toBe(0);
    const refused = await take(T0);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(refused.resetSeconds).toBe(3);
    expect((await take(T0 + 500)).allowed).toBe(false);
    expect(await take(T0 + 1000)).toMatchObject({ allowed: true, remaining: 0 });
    // Refill never exceeds capacity.
    expect((await take(T0 + 60_000)).remaining).toBe(2);
  });

  it('does not refill when a clock reads earlier than the stored time', async () => {
    for (let i = 0; i < 3; i++) await take(T0);
    expect((await take(T0 - 5000)).allowed).toBe(false);
  });

  it('keeps buckets apart and admits exactly the capacity under concurrency', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => take(T0, 'key:b', 5, 0.001)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect((await take(T0, 'key:c')).remaining).toBe(2);
  });

  it('grants count tokens, fewer when fewer whole ones are left, none below one', async () => {
    const takeN = (nowMs: number, count: number) =>
      takeToken(ctx.db, { bucketKey: 'key:n', capacity: 10, refillPerSecond: 4, nowMs, count });
    expect(await takeN(T0, 4)).toMatchObject({
      allowed: true,
      granted: 4,
      tokens: 6,
      remaining: 6,
    });
    expect(await takeN(T0, 4)).toMatchObject({ granted: 4, tokens: 2 });
    // Two left: a partial grant empties the bucket.
    expect(await takeN(T0, 4)).toMatchObject({
      allowed: true,
      granted: 2,
      tokens: 0,
      remaining: 0,
    });
    expect(await takeN(T0, 4)).toMatchObject({ allowed: false, granted: 0, tokens: 0 });
    // 0.2 s refills 0.8 tokens: still below one, nothing granted, the fraction kept.
    const short = await takeN(T0 + 200, 4);
    expect(short).toMatchObject({ allowed: false, granted: 0, retryAfterSeconds: 1 });
    expect(short.tokens).toBeCloseTo(0.8, 9);
    // 0.6 s in total: 2.4 tokens, of which the two whole ones are granted.
    const partial = await takeN(T0 + 600, 4);
    expect(partial).toMatchObject({ allowed: true, granted: 2, remaining: 0 });
    expect(partial.tokens).toBeCloseTo(0.4, 9);
    // A first take on a new bucket is served from a full one.
    expect(
      await takeToken(ctx.db, {
        bucketKey: 'key:m',
        capacity: 3,
        refillPerSecond: 3,
        nowMs: T0,
        count: 5,
      }),
    ).toMatchObject({ granted: 3, tokens: 0 });
  });

  it('computes header figures from fractional tokens', () => {
    expect(bucketFigures(0.5, false, 10, 2)).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      resetSeconds: 5,
      retryAfterSeconds: 1,
    });
    expect(bucketFigures(9, true, 10, 25)).toMatchObject({ remaining: 9, resetSeconds: 1 });
  });
});
