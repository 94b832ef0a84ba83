/**
 * Requests Node's HTTP parser refuses, and requests that time out, answered over a real
 * socket: each gets the spec's error envelope with a `Request-Id`, then the connection closes.
 * Sent as raw bytes, since no HTTP client will write these requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docUrl, errorSpec } from '../../server/errors.js';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { type RawAnswer, rawExchange } from './support/raw-http.js';

// Bounds below are on the side load cannot move: a connection is never closed before its
// timeout, and a dribbled body is closed before the client has finished dribbling (a timer
// reset by each byte would wait for the end). That it closes at all is `rawExchange`'s guard.
const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 800;

let t: FixtureApp;
let port: number;
const exchange = (chunks: ReadonlyArray<string | number>) => rawExchange(port, chunks);
beforeAll(async () => {
  t = await fixtureApp({
    config: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t.close());

/** The status each refusal answers with, as the spec's error catalogue lists it. */
const STATUS = { request_malformed: 400, request_timeout: 408, headers_too_large: 431 } as const;

function expectEnvelope(answer: RawAnswer, code: keyof typeof STATUS): void {
  expect(answer.status).toBe(STATUS[code]);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['patientcare-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body) as { error: Record<string, unknown> };
  expect(body.error).toEqual({
    type: 'invalid_request_error',
    code,
    message: errorSpec(code).message,
    param: null,
    doc_url: docUrl(code),
    request_id: answer.headers['request-id'],
  });
}

const HOST = 'Host: 127.0.0.1\r\n';

describe('requests the HTTP parser refuses answer in the envelope', () => {
  it.each([
    [
      'Content-Length and Transfer-Encoding together',
      `POST /v1/widgets HTTP/1.1\r\n${HOST}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      'two different Content-Length headers',
      `POST /v1/widgets HTTP/1.1\r\n${HOST}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    ],
    [
      'a folded header (obs-fold)',
      `GET /v1/widgets HTTP/1.1\r\n${HOST}X-Note: one\r\n  two\r\n\r\n`,
    ],
    ['a header line ended by a bare LF', `GET /v1/widgets HTTP/1.1\r\n${HOST}X-Note: one\n\r\n`],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
  ])('%s → 400 request_malformed', async (_name, raw) => {
    const answer = await exchange([raw]);
    expectEnvelope(answer, 'request_malformed');
    expect(answer.headers.connection).toBe('close');
  });

  it('headers over 16 KiB → 431 headers_too_large', async () => {
    const answer = await exchange([
      `GET /v1/widgets HTTP/1.1\r\n${HOST}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    expectEnvelope(answer, 'headers_too_large');
  });

  it('a declared body over 1 MiB → 413 body_too_large, with Request-Id', async () => {
    const answer = await exchange([
      `POST /v1/widgets HTTP/1.1\r\n${HOST}Authorization: Bearer ${t.keys.secret.secret}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\nConnection: close\r\n\r\n{`,
    ]);
    expect(answer.status).toBe(413);
    const body = JSON.parse(answer.body) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('body_too_large');
    expect(answer.headers['request-id']).toBe(body.error.request_id);
  });

  it('logs no PHI: the refused bytes are never echoed in the answer', async () => {
    const answer = await exchange([`GET /v1/widgets?name=Doe HTTP/1.1\r\n${HOST}X-A: b\n\r\n`]);
    expect(answer.status).toBe(400);
    expect(answer.body).not.toContain('Doe');
  });
});

describe('timeouts close slow connections with 408 request_timeout', () => {
  it('headers that never finish', async () => {
    const answer = await exchange([`GET /v1/widgets HTTP/1.1\r\n${HOST}X-Slow: a`]);
    expectEnvelope(answer, 'request_timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
  });

  it('a body that stops half way', async () => {
    const answer = await exchange([
      `POST /v1/widgets HTTP/1.1\r\n${HOST}Authorization: Bearer ${t.keys.secret.secret}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    ]);
    expectEnvelope(answer, 'request_timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
  });

  it('a body dribbled a byte at a time, never idle long', async () => {
    const dribble: Array<string | number> = [
      `POST /v1/widgets HTTP/1.1\r\n${HOST}Authorization: Bearer ${t.keys.secret.secret}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`,
    ];
    for (let i = 0; i < 40; i++) dribble.push(100, ' ');
    const answer = await exchange(dribble);
    expect(answer.status).toBe(408);
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    // Sooner than the 40 × 100 ms the client would take to send the rest.
    expect(answer.closedAfterMs).toBeLessThan(40 * 100);
  });

  it('a request in time is answered normally on the same server', async () => {
    const answer = await exchange([
      `GET /v1/widgets HTTP/1.1\r\n${HOST}Authorization: Bearer ${t.keys.secret.secret}\r\nConnection: close\r\n\r\n`,
    ]);
    expect(answer.status).toBe(200);
  });
});

describe('a chunked body over 1 MiB', () => {
  it('→ 413 body_too_large in the envelope, counted as it streams', async () => {
    const chunk = 'a'.repeat(64 * 1024);
    const parts: string[] = [
      `POST /v1/widgets HTTP/1.1\r\n${HOST}Authorization: Bearer ${t.keys.secret.secret}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
    ];
    for (let i = 0; i < 20; i++) parts.push(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    parts.push('0\r\n\r\n');
    const answer = await exchange(parts);
    expect(answer.status).toBe(413);
    const body = JSON.parse(answer.body) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe('body_too_large');
    expect(answer.headers['request-id']).toBe(body.error.request_id);
  });
});
