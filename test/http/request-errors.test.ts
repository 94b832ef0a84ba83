import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { PHI_CANARY } from '../fixtures/http/handlers.js';

let t: FixtureApp;
beforeAll(async () => {
  t = await fixtureApp();
});
afterAll(() => t.close());

const post = (payload: string | Buffer, contentType?: string) =>
  t.request({
    method: 'POST',
    url: '/v1/widgets',
    key: t.keys.secret.secret,
    payload,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
  });

describe('bad input is the documented error, never a 500', () => {
  it('malformed JSON → 400 body_invalid_json', async () => {
    const res = await post('{"name": {"family": ', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('body_invalid_json');
  });

  it('an empty JSON body → 400 body_invalid_json', async () => {
    const res = await post('', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('body_invalid_json');
  });

  it('a POST without any body → 400 body_invalid_json', async () => {
    const res = await t.request({ method: 'POST', url: '/v1/widgets', key: t.keys.secret.secret });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('body_invalid_json');
  });

  it('a __proto__ key is read as data and refused as an unknown parameter, not as bad JSON', async () => {
    const res = await post(
      '{"name":{"family":"A"},"__proto__":{"admin":true}}',
      'application/json',
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('parameter_unknown');
    expect(res.body.error.param).toBe('__proto__');
    expect(res.body.error.message).not.toMatch(/JSON/);
  });

  it('JSON with a charset parameter is accepted', async () => {
    const res = await post('{"name":{"family":"A"}}', 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
  });

  it.each([
    ['text/plain', 'name=A'],
    ['application/x-www-form-urlencoded', 'name=A'],
    ['multipart/form-data; boundary=x', '--x--'],
  ])('%s → 415 content_type_unsupported', async (type, payload) => {
    const res = await post(payload, type);
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('content_type_unsupported');
  });

  it('a body over 1 MiB → 413 body_too_large', async () => {
    const big = JSON.stringify({ name: { family: 'A' }, metadata: { k: 'x'.repeat(1024 * 1024) } });
    const res = await post(big, 'application/json');
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('body_too_large');
  });

  it('an unknown route → 404 route_missing (with a valid key)', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/nothing', key: t.keys.secret.secret });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_missing');
  });

  it('a known path with another method → 404 route_missing', async () => {
    const res = await t.request({
      method: 'DELETE',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_missing');
  });

  it("a path with broken percent-encoding → the envelope, not Fastify's body", async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets/%E0%A4%A',
      key: t.keys.secret.secret,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_missing');
  });

  it('an over-long path parameter → 400 parameter_invalid', async () => {
    const res = await t.request({
      method: 'GET',
      url: `/v1/widgets/${'a'.repeat(300)}`,
      key: t.keys.secret.secret,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('parameter_invalid');
  });

  it('a Content-Length that does not match the body → 400', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      payload: '{"name":{"family":"A"}}',
      headers: { 'content-type': 'application/json', 'content-length': '5' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('body_invalid_json');
  });

  it('an unknown route without a key → 401 (authentication comes first)', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/nothing' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('api_key_missing');
  });
});

describe('unexpected failures', () => {
  it('a throwing handler → 500 internal with only the request id', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/crash', key: t.keys.secret.secret });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'internal', param: null });
    expect(res.body.error.request_id).toBe(res.headers['request-id']);
    expect(res.text).not.toContain(PHI_CANARY);
    expect(res.text).not.toMatch(/SELECT|SQLITE|at .*\.ts/);
  });

  it('a handler answering a status the route does not list → 500 internal', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/wrong_status',
      key: t.keys.secret.secret,
    });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal');
  });
});

describe('headers on every response', () => {
  it('Request-Id is fresh per request and matches the body', async () => {
    const a = await t.request({ method: 'GET', url: '/v1/widgets', key: t.keys.secret.secret });
    const b = await t.request({ method: 'GET', url: '/v1/widgets', key: t.keys.secret.secret });
    expect(a.headers['request-id']).not.toBe(b.headers['request-id']);
  });

  it('a client-sent Request-Id is not trusted', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      headers: { 'request-id': 'req_forged' },
    });
    expect(res.headers['request-id']).not.toBe('req_forged');
  });
});
