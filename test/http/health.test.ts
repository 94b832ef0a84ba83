/**
 * The health probes (`GET /healthz`, `GET /readyz`, `security: []`): answered without a key,
 * never cached, counted per client address in the process's memory (never the database's
 * bucket), and readiness reports a schema that lacks a migration of this build as 503. With the
 * rate-limit store failing as an unreachable database does, the probes still answer and API
 * requests get `503 service_unavailable` with `Retry-After` (issue 31; the real outage, a
 * private PostgreSQL stopped and restarted, is test/durability/database-outage.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DbError } from '../../server/db/errors.js';
import { defaultStore } from '../../server/http/default-store.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';

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

  it('probes share a per-client bucket in memory: past it, 429 rate_limited in the envelope', async () => {
    let takes = 0;
    const store = {
      ...defaultStore,
      takeToken: (...args: Parameters<typeof defaultStore.takeToken>) => {
        takes += 1;
        return defaultStore.takeToken(...args);
      },
    };
    t = await buildTestApp({ store, config: { rateLimits: { anonymousRps: 2 } } });
    expect((await t.request({ method: 'GET', url: '/healthz' })).status).toBe(200);
    expect((await t.request({ method: 'GET', url: '/readyz' })).status).toBe(200);
    const limited = await t.request({ method: 'GET', url: '/healthz' });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
    // None of them took a token from the database's buckets.
    expect(takes).toBe(0);
    t.clock.now += 1000;
    expect((await t.request({ method: 'GET', url: '/healthz' })).status).toBe(200);
  });

  it('with the rate-limit store unreachable: probes answer, API requests are 503 with Retry-After', async () => {
    const refused = () =>
      Promise.reject(new DbError('connection', 'connect ECONNREFUSED', 'ECONNREFUSED'));
    t = await buildTestApp({ store: { ...defaultStore, takeToken: refused } });
    const key = await makeKey(t.db);
    expect((await t.request({ method: 'GET', url: '/healthz' })).status).toBe(200);
    expect((await t.request({ method: 'GET', url: '/readyz' })).status).toBe(200);
    for (const res of [
      await t.request({ method: 'GET', url: '/v1/patients', key: key.secret }),
      await t.request({ method: 'GET', url: '/v1/patients' }),
      await t.request({ method: 'GET', url: '/fhir/R4/Patient', key: key.secret }),
    ]) {
      expect(res.status, res.text).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
    }
    const api = await t.request({ method: 'GET', url: '/v1/patients', key: key.secret });
    expect(api.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    const fhir = await t.request({ method: 'GET', url: '/fhir/R4/Patient', key: key.secret });
    expect(fhir.body.issue[0]).toMatchObject({ code: 'transient' });
  });
});
