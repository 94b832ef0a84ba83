/**
 * The health probes (`GET /healthz`, `GET /readyz`, `security: []`): answered without a key,
 * never cached, counted against the client address's anonymous bucket, and readiness reports
 * a schema that lacks a migration of this build as 503.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('health probes', () => {
  it('GET /healthz answers 200 without a key, not cached, with rate-limit headers', async () => {
    t = await buildTestApp();
    const res = await t.request({ method: 'GET', url: '/healthz' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'health', status: 'ok', checks: {} });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['ratelimit-limit']).toBe('10000');
    expect(String(res.headers['request-id'])).toMatch(/^req_/);
  });

  it('ignores a bad Authorization header (a probe never needs one)', async () => {
    t = await buildTestApp();
    const res = await t.request({ method: 'GET', url: '/healthz', key: 'sk_test_nonsense' });
    expect(res.status).toBe(200);
  });

  it('GET /readyz checks the database and migrations', async () => {
    t = await buildTestApp();
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'health',
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok' },
    });
  });

  it('GET /readyz is 503 naming the check when a migration of this build is missing', async () => {
    t = await buildTestApp();
    await t.db.run(
      'DELETE FROM schema_migrations WHERE version = (SELECT MAX(version) FROM schema_migrations)',
    );
    const res = await t.request({ method: 'GET', url: '/readyz' });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      object: 'health',
      status: 'unavailable',
      checks: { database: 'ok', migrations: 'pending' },
    });
    // Liveness does not depend on the database.
    expect((await t.request({ method: 'GET', url: '/healthz' })).status).toBe(200);
  });

  it('shares the per-client anonymous bucket: past it, 429 rate_limited in the envelope', async () => {
    t = await buildTestApp({ config: { rateLimits: { anonymousRps: 2 } } });
    expect((await t.request({ method: 'GET', url: '/healthz' })).status).toBe(200);
    expect((await t.request({ method: 'GET', url: '/readyz' })).status).toBe(200);
    const limited = await t.request({ method: 'GET', url: '/healthz' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
  });
});
