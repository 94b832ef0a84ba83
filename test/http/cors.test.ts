import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { makeKey, type TestKey } from '../support/keys.js';

let t: FixtureApp;
let limited: TestKey;
const ORIGIN = 'https://intake.clinic.example';
const token = (key: string, origin: string) =>
  t.request({
    method: 'POST',
    url: '/v1/tokens',
    key,
    body: { type: 'patient_intake' },
    headers: { origin },
  });

beforeAll(async () => {
  t = await fixtureApp();
  limited = await makeKey(t.db, { kind: 'publishable', allowedOrigins: [ORIGIN] });
});
afterAll(() => t.close());

describe('CORS for browser keys', () => {
  it('answers a preflight without a key', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/tokens',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(res.headers['access-control-allow-headers'])).toContain('Idempotency-Key');
  });

  it('lets the page read a publishable key response from an allowed origin', async () => {
    const res = await token(limited.secret, ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(res.headers['access-control-expose-headers'])).toContain('Request-Id');
  });

  it('refuses a publishable key from an origin it does not list', async () => {
    const res = await token(limited.secret, 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(t.state.executions.createToken ?? 0).toBe(1);
  });

  it('a publishable key without a list works from any origin', async () => {
    const res = await token(t.keys.publishable.secret, 'https://any.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://any.example');
  });

  it('never exposes a secret key response to a browser', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('methods the spec does not have', () => {
  it('HEAD is route_missing, not a GET in disguise', async () => {
    const before = t.state.executions.listWidgets ?? 0;
    const res = await t.app.inject({
      method: 'HEAD',
      url: '/v1/widgets',
      headers: { authorization: `Bearer ${t.keys.secret.secret}` },
    });
    expect(res.statusCode).toBe(404);
    expect(t.state.executions.listWidgets ?? 0).toBe(before);
  });
});
