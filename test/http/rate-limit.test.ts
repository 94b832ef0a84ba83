import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { makeKey } from '../support/keys.js';

let t: FixtureApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const limits = { liveRps: 5, testRps: 3, anonymousRps: 2 };

describe('rate limits', () => {
  it('sends RateLimit-* on success and counts down', async () => {
    t = await fixtureApp({ config: { rateLimits: limits } });
    const key = t.keys.secret.secret;
    const first = await t.request({ method: 'GET', url: '/v1/widgets', key });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    const second = await t.request({ method: 'GET', url: '/v1/widgets', key });
    expect(second.headers['ratelimit-remaining']).toBe('1');
  });

  it('answers 429 rate_limited with Retry-After once the bucket is empty, and refills', async () => {
    t = await fixtureApp({ config: { rateLimits: limits } });
    const key = t.keys.secret.secret;
    for (let i = 0; i < 3; i++) {
      expect((await t.request({ method: 'GET', url: '/v1/widgets', key })).status).toBe(200);
    }
    const limited = await t.request({ method: 'GET', url: '/v1/widgets', key });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(t.state.executions.listWidgets).toBe(3);
    t.clock.now += 1000;
    expect((await t.request({ method: 'GET', url: '/v1/widgets', key })).status).toBe(200);
  });

  it('spends leased tokens at 100/s: exactly 100 admitted in a burst, Remaining counting down', async () => {
    t = await fixtureApp({ config: { rateLimits: { ...limits, testRps: 100 } } });
    const key = t.keys.secret.secret;
    const remaining: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await t.request({ method: 'GET', url: '/v1/widgets', key });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('100');
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => String(99 - i)));
    const limited = await t.request({ method: 'GET', url: '/v1/widgets', key });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(t.state.executions.listWidgets).toBe(100);
    // 30 ms later 3 tokens are back: a partial lease.
    t.clock.now += 30;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await t.request({ method: 'GET', url: '/v1/widgets', key })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('uses the live rate for live keys and a per-key override when set', async () => {
    t = await fixtureApp({ config: { rateLimits: limits } });
    const live = await t.request({ method: 'GET', url: '/v1/widgets', key: t.keys.live.secret });
    expect(live.headers['ratelimit-limit']).toBe('5');
    const custom = await makeKey(t.db, { rateLimit: 7 });
    const res = await t.request({ method: 'GET', url: '/v1/widgets', key: custom.secret });
    expect(res.headers['ratelimit-limit']).toBe('7');
  });

  it('keeps one bucket per key', async () => {
    t = await fixtureApp({ config: { rateLimits: limits } });
    for (let i = 0; i < 4; i++) {
      await t.request({ method: 'GET', url: '/v1/widgets', key: t.keys.secret.secret });
    }
    const other = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.readOnly.secret,
    });
    expect(other.status).toBe(200);
  });

  it('counts requests without a valid key per client address', async () => {
    t = await fixtureApp({ config: { rateLimits: limits } });
    const anon = (remoteAddress: string) =>
      t!.request({ method: 'GET', url: '/v1/widgets', key: 'sk_test_nope', remoteAddress });
    const first = await anon('192.0.2.1');
    expect(first.status).toBe(401);
    expect(first.headers['ratelimit-limit']).toBe('2');
    await anon('192.0.2.1');
    const third = await anon('192.0.2.1');
    expect(third.status).toBe(429);
    expect((await anon('192.0.2.2')).status).toBe(401);
  });

  it('puts the headers on error responses too (404, 400)', async () => {
    t = await fixtureApp({ config: { rateLimits: limits } });
    const key = t.keys.secret.secret;
    const missing = await t.request({ method: 'GET', url: '/v1/nothing', key });
    expect(missing.status).toBe(404);
    expect(missing.headers['ratelimit-limit']).toBe('3');
    const invalid = await t.request({ method: 'GET', url: '/v1/widgets?limit=0', key });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['ratelimit-remaining']).toBe('1');
  });
});
