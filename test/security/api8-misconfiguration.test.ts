/**
 * OWASP API8:2023 Security Misconfiguration: hostile input on every route never yields a 5xx,
 * a stack trace, a file path or a driver message; no framework banner headers; and secret or
 * restricted keys are refused from browser origins on every route (CORS), with no
 * `Access-Control-Allow-Credentials` anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpMethod } from '../../contract/route-types.js';
import { requestFor } from './support/operations.js';
import { buildSecurityApp, routes, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

const LEAK =
  /\bat \S+ \(|\.ts:\d+|\/work\/|node_modules|sqlite|postgres|SQLITE_|syntax error|TypeError|RangeError|ReferenceError|stack/i;

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const HOSTILE: Array<[string, { payload?: string; contentType?: string; query?: string }]> = [
  ['truncated JSON', { payload: '{"name":' }],
  ['JSON with a BOM', { payload: '\uFEFF{}' }],
  ['10,000-deep nesting', { payload: `{"metadata":${deep(10_000)}}` }],
  ['a huge number', { payload: '{"limit":1e999999}' }],
  ['__proto__ key', { payload: '{"__proto__":{"admin":true}}' }],
  ['constructor.prototype', { payload: '{"constructor":{"prototype":{"admin":true}}}' }],
  ['lone surrogate', { payload: '{"name":{"family":"\\ud800"}}' }],
  ['NUL in a string', { payload: '{"name":{"family":"a\\u0000b"}}' }],
  ['a JSON array', { payload: '[]' }],
  ['a JSON string', { payload: '"x"' }],
  ['form encoding', { payload: 'a=1', contentType: 'application/x-www-form-urlencoded' }],
  ['XML', { payload: '<a/>', contentType: 'application/xml' }],
  ['multipart', { payload: '--x--', contentType: 'multipart/form-data; boundary=x' }],
  ['array query', { query: 'limit[]=1&limit[]=2' }],
  ['nested query', { query: 'created[gt][x]=1' }],
  ['unknown query', { query: 'debug=true&expand[]=secret' }],
  ['8 kB query', { query: `x=${'a'.repeat(8000)}` }],
];

describe.each(routes.map((r) => [r.operationId, r] as const))('%s', (op, route) => {
  it('hostile input: a documented 4xx in the envelope, no 5xx, no internals', async () => {
    const req = requestFor(op, s.test);
    const key = req.role === 'publishable' ? s.keys.publishable : s.keys.secret;
    for (const [name, attack] of HOSTILE) {
      const hasBody = route.method === 'POST';
      if (!hasBody && attack.payload !== undefined) continue;
      const res = await s.t.app.inject({
        method: route.method as HttpMethod,
        url: attack.query
          ? `${req.url}${req.url.includes('?') ? '&' : '?'}${attack.query}`
          : req.url,
        headers: {
          authorization: `Bearer ${key}`,
          ...(hasBody ? { 'content-type': attack.contentType ?? 'application/json' } : {}),
        },
        ...(hasBody ? { payload: attack.payload ?? JSON.stringify(req.body ?? {}) } : {}),
      });
      expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(500);
      expect(res.body, name).not.toMatch(LEAK);
      if (res.statusCode >= 400) {
        const body = JSON.parse(res.body) as { error: Record<string, unknown> };
        expect(Object.keys(body.error).sort(), name).toEqual([
          'code',
          'doc_url',
          'message',
          'param',
          'request_id',
          'type',
        ]);
      }
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers.server).toBeUndefined();
      expect(String(res.headers['content-type'])).toMatch(/^application\/json; charset=utf-8$/);
      // Answers may carry PHI: never cached, never sniffed.
      expect(res.headers['cache-control'], name).toBe('no-store');
      expect(res.headers['x-content-type-options'], name).toBe('nosniff');
    }
  });

  it('a valid call is not cacheable either', async () => {
    const req = requestFor(op, s.test);
    const key = req.role === 'publishable' ? s.keys.publishable : s.keys.secret;
    const res = await s.t.app.inject({
      method: route.method as HttpMethod,
      url: req.url,
      headers: {
        authorization: `Bearer ${key}`,
        ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(req.body === undefined ? {} : { payload: JSON.stringify(req.body) }),
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('secret and restricted keys from a browser origin → 403 secret_key_required, never a readable success', async () => {
    const req = requestFor(op, s.test);
    for (const key of [s.keys.secret, s.keys.restrictedAll]) {
      const res = await s.t.request({
        method: req.method,
        url: req.url,
        key,
        ...(req.body === undefined ? {} : { body: req.body }),
        headers: { origin: 'https://attacker.example' },
      });
      expect(res.status, res.text).toBe(403);
      if (req.role === 'secret') expect(res.body.error.code).toBe('secret_key_required');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });
});

describe('preflights', () => {
  it.each(
    routes
      .filter((r) => !r.keyKinds?.some((k) => k === 'publishable' || k === 'ephemeral'))
      .map((r) => [r.operationId, r] as const),
  )('%s (server keys only): preflight refused, nothing allows credentials', async (_op, route) => {
    const res = await s.t.app.inject({
      method: 'OPTIONS',
      url: route.path.replace('{id}', s.test.pat),
      headers: {
        origin: 'https://attacker.example',
        'access-control-request-method': route.method,
        'access-control-request-headers': 'authorization',
      },
    });
    expect(res.statusCode).not.toBe(204);
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});
