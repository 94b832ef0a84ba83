import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes as generatedRoutes } from '../../generated/routes.js';
import { browserMethodsByUrl } from '../../server/http/cors.js';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { routes } from '../fixtures/http/routes.js';
import { makeKey, type TestKey } from '../support/keys.js';

let t: FixtureApp;
let limited: TestKey;
let ephemeral: TestKey;
let ephemeralLimited: TestKey;
const ORIGIN = 'https://intake.clinic.example';
const PATIENT = 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W';
const token = (key: string, origin: string) =>
  t.request({
    method: 'POST',
    url: '/v1/tokens',
    key,
    body: { type: 'patient_intake' },
    headers: { origin },
  });
const preflight = (url: string, method: string, origin = ORIGIN) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
  });

beforeAll(async () => {
  t = await fixtureApp();
  limited = await makeKey(t.db, { kind: 'publishable', allowedOrigins: [ORIGIN] });
  const ephemeralOptions = {
    kind: 'ephemeral' as const,
    scopes: ['patients:read'],
    patientId: PATIENT,
    expiresInSeconds: 900,
  };
  ephemeral = await makeKey(t.db, ephemeralOptions);
  ephemeralLimited = await makeKey(t.db, { ...ephemeralOptions, allowedOrigins: [ORIGIN] });
});
afterAll(() => t.close());

describe('which operations browsers may call', () => {
  it('comes from the route table: routes whose keyKinds include publishable or ephemeral', () => {
    expect(Object.fromEntries(browserMethodsByUrl(routes))).toEqual({
      '/v1/widgets': ['GET'],
      '/v1/widgets/:id': ['GET'],
      '/v1/tokens': ['POST'],
    });
  });

  it('for the real spec: createToken and the ephemeral operations, nothing else', () => {
    const methods = browserMethodsByUrl(generatedRoutes);
    expect(methods.get('/v1/tokens')).toEqual(['POST']);
    expect(methods.get('/v1/patients/:id')).toEqual(['GET']);
    expect([...(methods.get('/v1/appointments') ?? [])].sort()).toEqual(['GET', 'POST']);
    expect(methods.has('/v1/ephemeral_keys')).toBe(false);
    expect(methods.has('/v1/patients')).toBe(false);
  });
});

describe('preflight', () => {
  it('is answered without a key for a method browser keys may use', async () => {
    const res = await preflight('/v1/tokens', 'POST');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    const allowed = String(res.headers['access-control-allow-headers']);
    for (const header of [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'PatientCare-Version',
      // An ephemeral key's page may repeat the actor it was minted for.
      'PatientCare-Actor',
    ])
      expect(allowed).toContain(header);
    expect(String(res.headers.vary)).toContain('Origin');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('matches paths with parameters', async () => {
    const res = await preflight('/v1/widgets/wid_1', 'GET');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-methods']).toBe('GET');
  });

  it('is answered for any origin: the origin is enforced on the actual request', async () => {
    const res = await preflight('/v1/tokens', 'POST', 'https://elsewhere.example');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://elsewhere.example');
  });

  it('refuses a method only server keys may use at that path', async () => {
    const res = await preflight('/v1/widgets', 'POST');
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('secret_key_required');
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(t.state.executions.createWidget ?? 0).toBe(0);
  });

  it('refuses paths only server keys may call, and unknown paths, alike', async () => {
    for (const url of ['/v1/ephemeral_keys', '/v1/events', '/v1/nothing-here']) {
      const res = await preflight(url, url === '/v1/events' ? 'GET' : 'POST');
      expect(res.statusCode, url).toBe(403);
      expect(res.json().error.code, url).toBe('secret_key_required');
    }
  });

  it('an OPTIONS that is not a preflight needs a key and is route_missing', async () => {
    const bare = await t.app.inject({ method: 'OPTIONS', url: '/v1/tokens' });
    expect(bare.statusCode).toBe(401);
    const keyed = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/tokens',
      headers: { authorization: `Bearer ${t.keys.secret.secret}` },
    });
    expect(keyed.statusCode).toBe(404);
    expect(keyed.json().error.code).toBe('route_missing');
  });
});

describe('publishable keys', () => {
  it('lets the page read a response from an allowed origin', async () => {
    const res = await token(limited.secret, ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    const exposed = String(res.headers['access-control-expose-headers']);
    for (const header of [
      'Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'Idempotent-Replayed',
      'PatientCare-Version',
      'Deprecation',
      'Sunset',
      'Link',
    ])
      expect(exposed).toContain(header);
    expect(String(res.headers.vary)).toContain('Origin');
  });

  it('refuses an origin the key does not list, before the handler, unreadably', async () => {
    const before = t.state.executions.createToken ?? 0;
    const res = await token(limited.secret, 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(t.state.executions.createToken ?? 0).toBe(before);
    expect(t.audit.entries.at(-1)).toMatchObject({ keyId: limited.id, outcome: 'denied' });
  });

  it('without a list, works from any origin', async () => {
    const res = await token(t.keys.publishable.secret, 'https://any.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://any.example');
  });

  it('a refusal by operation (secret_key_required) is readable by an allowed page', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: limited.secret,
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('secret_key_required');
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
  });
});

describe('ephemeral keys', () => {
  it('are usable from any origin when created without a list (as the API creates them)', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: ephemeral.secret,
      headers: { origin: 'https://portal.example' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://portal.example');
  });

  it('honour an origin list stored on the key', async () => {
    const ok = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: ephemeralLimited.secret,
      headers: { origin: ORIGIN },
    });
    expect(ok.status).toBe(200);
    const refused = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: ephemeralLimited.secret,
      headers: { origin: 'https://portal.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('server keys from a browser', () => {
  it.each([
    ['secret', () => t.keys.secret],
    ['restricted', () => t.keys.readOnly],
  ])('a %s key with an Origin header is 403 secret_key_required, saying why', async (_, key) => {
    const before = t.state.executions.listWidgets ?? 0;
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: key().secret,
      headers: { origin: ORIGIN },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('secret_key_required');
    expect(res.body.error.message).toMatch(/must not be used from a browser/);
    expect(t.state.executions.listWidgets ?? 0).toBe(before);
    expect(t.audit.entries.at(-1)).toMatchObject({ keyId: key().id, outcome: 'denied' });
    // The refusal is readable, so the page's developer sees why; no success ever is.
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('`Origin: null` (sandboxed frame, file: page) counts as a browser', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      headers: { origin: 'null' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('secret_key_required');
  });

  it("the service's own pages (docs explorer: Origin is the API's origin) may use one", async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      headers: { origin: 'http://api.clinic.example:4010', host: 'api.clinic.example:4010' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('without an Origin header, a server key works and gets no CORS headers', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/widgets', key: t.keys.secret.secret });
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
