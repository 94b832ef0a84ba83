/**
 * OWASP API4:2023 Unrestricted Resource Consumption, on every route of the table: a body over
 * the limit is 413 on every operation that takes one, `limit` over 100 (or under 1) is 400 on
 * every list and on search, and a key past its rate is 429 with `Retry-After`, on every route,
 * with the bucket shared across routes (switching endpoints does not reset it). Anonymous
 * routes (docs, `/openapi.*`, `GET /`) take the per-client-IP bucket of requests without a
 * key; the health probes have their own per-client-IP bucket in memory, at the same rate
 * (they must answer while the database holding the shared one is down).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import { inject, requestFor } from './support/operations.js';
import {
  buildSecurityApp,
  keyedRoutes as routes,
  type SecurityApp,
} from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

const withBody = routes.filter((r) => r.schemas.body !== undefined);
const lists = routes.filter(
  (r) => r.method === 'GET' && r.parameters.some((p) => p.name === 'limit'),
);

describe('body size limit (1 MiB)', () => {
  it.each(withBody.map((r) => [r.operationId] as const))(
    '%s: 1 MiB + 1 of JSON → 413 body_too_large',
    async (op) => {
      const req = requestFor(op, s.test);
      const key = req.role === 'publishable' ? s.keys.publishable : s.keys.secret;
      // Valid JSON, so only the size can be the reason.
      const filler = 'a'.repeat(1024 * 1024);
      const res = await s.t.request({
        method: req.method,
        url: req.url,
        key,
        payload: JSON.stringify({ ...req.body, padding: filler }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('body_too_large');
    },
  );
});

describe('page size', () => {
  it('every list route (a GET not ending in {id}) takes limit', () => {
    const gets = routes.filter((r) => r.method === 'GET' && !r.path.endsWith('{id}'));
    expect(gets.length).toBeGreaterThanOrEqual(5);
    expect(lists.map((r) => r.operationId).sort()).toEqual(gets.map((r) => r.operationId).sort());
  });

  it.each(lists.map((r) => [r.operationId, r.path] as const))(
    '%s: limit 101, 0, -1, 1e9 → 400 param limit; 100 → 200',
    async (_op, path) => {
      for (const limit of ['101', '0', '-1', '1000000000', '1e3']) {
        const res = await s.t.request({
          method: 'GET',
          url: `${path.replace('{id}', s.test.wh)}?limit=${limit}`,
          key: s.keys.secret,
        });
        expect(res.status, `limit=${limit}`).toBe(400);
        expect(res.body.error.param).toBe('limit');
      }
      const ok = await s.t.request({
        method: 'GET',
        url: `${path.replace('{id}', s.test.wh)}?limit=100`,
        key: s.keys.secret,
      });
      expect(ok.status).toBe(200);
    },
  );

  it('searchPatients: limit 101 → 400', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/patients/search',
      key: s.keys.secret,
      body: { family_name: 'A', limit: 101 },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('limit');
  });
});

describe('rate limit', () => {
  let limited: SecurityApp;
  beforeAll(async () => {
    limited = await buildSecurityApp({ config: { rateLimits: { anonymousRps: 5 } } });
  });
  afterAll(() => limited.close());

  it('a key past its rate gets 429 rate_limited with Retry-After on every route; the bucket spans routes', async () => {
    // A tiny rate for the test key; the fixed test clock keeps the bucket from refilling.
    const { createKey } = await import('../../server/keys/store.js');
    const { secret } = await createKey(limited.t.db, {
      kind: 'secret',
      livemode: false,
      rateLimit: 3,
      nowMs: limited.t.clock.now,
    });
    const seen: number[] = [];
    for (const route of routes) {
      const req = requestFor(route.operationId, limited.test);
      const key = req.role === 'publishable' ? limited.keys.publishable : secret;
      if (req.role === 'publishable') continue;
      const res = await limited.t.request(inject(req, key));
      seen.push(res.status);
      if (seen.length > 3) {
        expect(res.status, route.operationId).toBe(429);
        expect(res.body.error.type).toBe('rate_limit_error');
        expect(res.body.error.code).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(res.headers['ratelimit-remaining']).toBe('0');
      }
    }
    expect(seen.slice(0, 3).every((status) => status !== 429)).toBe(true);
    expect(seen.length).toBeGreaterThan(10);
  });

  it('requests without a valid key are limited per client address too', async () => {
    let last = 0;
    for (let i = 0; i < 40 && last !== 429; i++) {
      const res = await limited.t.request({
        method: 'GET',
        url: '/v1/patients',
        key: `sk_test_${'x'.repeat(40)}`,
        remoteAddress: '198.51.100.9',
      });
      last = res.status;
    }
    expect(last).toBe(429);
  });
});

describe('anonymous routes (docs, spec, health, GET /)', () => {
  let anon: SecurityApp;
  beforeAll(async () => {
    anon = await buildSecurityApp({
      config: { rateLimits: { anonymousRps: 4 } },
      docs: { load: () => prepareDocs('spec/openapi.yaml') },
    });
  });
  afterAll(() => anon.close());

  it('share the per-client-IP bucket: past it, 429 in the envelope; other clients and keys unaffected', async () => {
    const from = (url: string, remoteAddress: string) =>
      anon.t.app.inject({ method: 'GET', url, remoteAddress });
    const urls = ['/openapi.yaml', '/docs', '/openapi.yaml', '/openapi.json'];
    for (const url of urls) expect((await from(url, '203.0.113.7')).statusCode, url).not.toBe(429);
    for (const url of [...urls, '/']) {
      const res = await from(url, '203.0.113.7');
      expect(res.statusCode, url).toBe(429);
      expect(res.json().error.code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // The probes' own bucket: untouched by the docs above, limited at the same rate.
    const probes = ['/healthz', '/readyz', '/healthz', '/readyz'];
    for (const url of probes) expect((await from(url, '203.0.113.7')).statusCode, url).toBe(200);
    for (const url of ['/healthz', '/readyz']) {
      const res = await from(url, '203.0.113.7');
      expect(res.statusCode, url).toBe(429);
      expect(res.json().error.code).toBe('rate_limited');
    }
    // Another address has its own bucket; an API key has its own too.
    expect((await from('/openapi.yaml', '203.0.113.8')).statusCode).toBe(200);
    const api = await anon.t.app.inject({
      method: 'GET',
      url: '/v1/patients',
      remoteAddress: '203.0.113.7',
      headers: { authorization: `Bearer ${anon.keys.secret}` },
    });
    expect(api.statusCode).toBe(200);
  });
});
