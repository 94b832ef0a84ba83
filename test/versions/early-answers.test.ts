/**
 * The version a request names is the version of every answer to it: refusals before the route
 * is reached (no key, a bad key, an address the key does not allow, the rate limit, an unknown
 * path, a preflight, a media type or size the parser refuses, framing Node's parser refuses
 * after reading the headers, a body that times out) echo the named version, and each answer is
 * checked against that version's document (`t.request` does). An unknown date keeps the 400 in
 * the latest version.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { versions } from '../../server/versioning/index.js';
import { rawExchange } from '../http/support/raw-http.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';

const OLD = '2026-11-01';
const named = { 'patientcare-version': OLD };

describe('early answers in the version the request names', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({
      config: { bodyLimit: 2048, headersTimeoutMs: 400, requestTimeoutMs: 800 },
    });
  });
  afterEach(async () => t.close());

  it('the named version is not the latest (the test would prove nothing otherwise)', () => {
    expect(versions.latest).not.toBe(OLD);
  });

  it.each([
    ['401 without a key', undefined, 'GET', '/v1/patients', 401],
    ['401 with a bad key', 'sk_test_notakey', 'GET', '/v1/patients', 401],
    ['404 route_missing', 'valid', 'GET', '/v1/nothing-here', 404],
  ])('%s', async (_name, key, method, url, status) => {
    const secret = key === 'valid' ? (await makeKey(t.db)).secret : key;
    const res = await t.request({
      method: method as 'GET',
      url,
      headers: named,
      ...(secret === undefined ? {} : { key: secret }),
    });
    expect(res.status).toBe(status);
    expect(res.headers['patientcare-version']).toBe(OLD);
  });

  it('403 ip_not_allowed', async () => {
    const key = await makeKey(t.db, { allowedIps: ['10.0.0.0/8'] });
    const res = await t.request({
      method: 'GET',
      url: '/v1/patients',
      key: key.secret,
      headers: named,
    });
    expect(res.body.error.code).toBe('ip_not_allowed');
    expect(res.headers['patientcare-version']).toBe(OLD);
  });

  it('415 and 413 from the body parser', async () => {
    const key = await makeKey(t.db);
    const media = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: key.secret,
      headers: { ...named, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(media.status).toBe(415);
    expect(media.headers['patientcare-version']).toBe(OLD);
    const big = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: key.secret,
      headers: named,
      body: { name: { family: 'x'.repeat(4096) } },
    });
    expect(big.status).toBe(413);
    expect(big.headers['patientcare-version']).toBe(OLD);
  });

  it('a CORS preflight', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/patients',
      headers: {
        ...named,
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
      },
    });
    expect(res.headers['patientcare-version']).toBe(OLD);
  });

  it('a router refusal before any hook (bad percent-encoding)', async () => {
    const key = await makeKey(t.db);
    const res = await t.request({
      method: 'GET',
      url: '/v1/patients/%E0%A4%A',
      key: key.secret,
      headers: named,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers['patientcare-version']).toBe(OLD);
  });

  it('an unknown date is still the 400, answered in the latest', async () => {
    const key = await makeKey(t.db);
    const res = await t.request({
      method: 'GET',
      url: '/v1/patients',
      key: key.secret,
      headers: { 'patientcare-version': '2031-01-01' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('PatientCare-Version');
    expect(res.headers['patientcare-version']).toBe(versions.latest);
  });
});

describe('429 in the named version', () => {
  it('the rate limit refuses in the version named', async () => {
    const t = await buildTestApp({ config: { rateLimits: { testRps: 1 } } });
    try {
      const key = await makeKey(t.db);
      const answers = [];
      for (let i = 0; i < 3; i++) {
        answers.push(
          await t.request({ method: 'GET', url: '/v1/patients', key: key.secret, headers: named }),
        );
      }
      const limited = answers.find((res) => res.status === 429);
      expect(limited?.headers['patientcare-version']).toBe(OLD);
    } finally {
      await t.close();
    }
  });
});

describe('refusals of the HTTP parser after the headers were read', () => {
  let t: TestApp;
  let port: number;
  beforeEach(async () => {
    t = await buildTestApp({ config: { headersTimeoutMs: 400, requestTimeoutMs: 800 } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterEach(async () => t.close());
  const head = (key: string, extra: string) =>
    `POST /v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nPatientCare-Version: ${OLD}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  it('408 for a body that stops half way', async () => {
    const key = await makeKey(t.db);
    const answer = await rawExchange(port, [
      `${head(key.secret, 'Content-Length: 100\r\n')}{"name":`,
    ]);
    expect(answer.status).toBe(408);
    expect(answer.headers['patientcare-version']).toBe(OLD);
  });

  it('400 request_malformed for a chunk size that is not hex', async () => {
    const key = await makeKey(t.db);
    const answer = await rawExchange(port, [
      `${head(key.secret, 'Transfer-Encoding: chunked\r\n')}zz\r\n{}\r\n0\r\n\r\n`,
    ]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.code).toBe('request_malformed');
    expect(answer.headers['patientcare-version']).toBe(OLD);
  });

  it('a refusal before the headers were read answers in the latest', async () => {
    const answer = await rawExchange(port, ['HELLO\r\n\r\n']);
    expect(answer.status).toBe(400);
    expect(answer.headers['patientcare-version']).toBe(versions.latest);
  });
});
