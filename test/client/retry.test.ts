import { describe, expect, test } from 'vitest';
import {
  backoffDelay,
  ConnectionError,
  createRetryingFetch,
  parseRetryAfter,
} from '../../client/index.js';
import { envelope, json, patient, scriptedFetch, testClient } from './helpers.js';

const rateLimited = (retryAfter?: string) =>
  json(
    429,
    envelope('rate_limit_error', 'rate_limited'),
    retryAfter ? { 'Retry-After': retryAfter } : {},
  );
const inUse = json(409, envelope('invalid_request_error', 'idempotency_key_in_use'));
const ok = json(200, patient(1));
const retrieve = { params: { path: { id: 'pat_1' } } };

// With random() = 0.5 the "equal jitter" delay is 3/4 of the nominal step: 500 → 375, 1000 → 750.
describe('retry schedule (maxRetries 2 by default)', () => {
  test('429 waits Retry-After seconds, then succeeds', async () => {
    const { client, sent, sleeps } = testClient([rateLimited('2'), ok]);
    const { status } = await client.retrievePatient(retrieve);
    expect(status).toBe(200);
    expect(sent).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  test('429 without Retry-After backs off exponentially', async () => {
    const { client, sleeps } = testClient([rateLimited(), rateLimited(), ok]);
    expect((await client.retrievePatient(retrieve)).status).toBe(200);
    expect(sleeps).toEqual([375, 750]);
  });

  test('429 with a Retry-After beyond maxRetryAfterMs is returned, not waited for', async () => {
    const { client, sent, sleeps } = testClient([rateLimited('3600'), ok]);
    const result = await client.retrievePatient(retrieve);
    expect(result.status).toBe(429);
    expect(sent).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('409 idempotency_key_in_use is retried; other 409s are not', async () => {
    const a = testClient([inUse, ok]);
    expect((await a.client.createPatient({ body: { token: 'tok_1' } })).status).toBe(200);
    expect(a.sleeps).toEqual([375]);
    const b = testClient([
      json(409, envelope('invalid_request_error', 'resource_already_exists')),
      ok,
    ]);
    const result = await b.client.createPatient({ body: { token: 'tok_1' } });
    expect(result.status).toBe(409);
    expect(b.sent).toHaveLength(1);
  });

  test('5xx is retried until maxRetries, then returned', async () => {
    const { client, sent, sleeps } = testClient([json(503, envelope('api_error', 'internal'))]);
    const result = await client.retrievePatient(retrieve);
    expect(result.status).toBe(503);
    expect(sent).toHaveLength(3);
    expect(sleeps).toEqual([375, 750]);
  });

  test('501 and 400 are not retried', async () => {
    for (const status of [400, 501]) {
      const { client, sent, sleeps } = testClient([
        json(status, envelope('invalid_request_error', 'x')),
        ok,
      ]);
      expect((await client.retrievePatient(retrieve)).status).toBe(status);
      expect(sent).toHaveLength(1);
      expect(sleeps).toEqual([]);
    }
  });

  test('network errors are retried; when they persist a ConnectionError is thrown', async () => {
    const recovered = testClient([new TypeError('fetch failed'), ok]);
    expect((await recovered.client.retrievePatient(retrieve)).status).toBe(200);
    expect(recovered.sleeps).toEqual([375]);

    const failing = testClient([new TypeError('fetch failed')], { maxRetries: 4 });
    const error = await failing.client.retrievePatient(retrieve).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).attempts).toBe(5);
    expect((error as ConnectionError).cause).toBeInstanceOf(TypeError);
    expect(failing.sleeps).toEqual([375, 750, 1500, 3000]);
  });

  test('maxRetries: 0 sends once', async () => {
    const { client, sent } = testClient([json(500, envelope('api_error', 'internal')), ok], {
      maxRetries: 0,
    });
    expect((await client.retrievePatient(retrieve)).status).toBe(500);
    expect(sent).toHaveLength(1);
  });

  test('onRetry reports reason and status', async () => {
    const events: unknown[] = [];
    const { client } = testClient([rateLimited('1'), inUse, ok], {
      onRetry: (e) => events.push(e),
    });
    await client.createPatient({ body: { token: 'tok_1' } });
    expect(events).toEqual([
      { retry: 1, delayMs: 1000, reason: 'rate_limited', status: 429 },
      { retry: 2, delayMs: 750, reason: 'idempotency_key_in_use', status: 409 },
    ]);
  });
});

describe('what is safe to repeat', () => {
  test('a PATCH without an Idempotency-Key is not retried; with one it is', async () => {
    const { fetch, sent } = scriptedFetch(json(503, {}), json(503, {}), json(200, {}));
    const retrying = createRetryingFetch(fetch, { sleep: async () => {} });
    const url = 'http://127.0.0.1:4010/x';
    expect((await retrying(new Request(url, { method: 'PATCH', body: '{}' }))).status).toBe(503);
    expect(sent).toHaveLength(1);
    const keyed = new Request(url, {
      method: 'PATCH',
      body: '{}',
      headers: { 'Idempotency-Key': 'k' },
    });
    expect((await retrying(keyed)).status).toBe(200);
    expect(sent).toHaveLength(3);
  });

  test('an aborted request is not retried and rejects with the abort reason', async () => {
    const controller = new AbortController();
    const { fetch, sent } = scriptedFetch(json(503, {}));
    const retrying = createRetryingFetch(fetch, {
      sleep: async () => {
        controller.abort(new Error('stop'));
        throw controller.signal.reason;
      },
    });
    const request = new Request('http://127.0.0.1:4010/x', { signal: controller.signal });
    await expect(retrying(request)).rejects.toThrow('stop');
    expect(sent).toHaveLength(1);
  });
});

describe('delays', () => {
  test.each([
    [1, 0, 250],
    [1, 0.999, 500],
    [2, 0.5, 750],
    [5, 0, 4000],
    [10, 0, 4000], // capped at maxDelayMs 8 s, half of it fixed
  ])('backoff retry %i with random %f → %i ms', (retry, random, want) => {
    expect(backoffDelay(retry, { random: () => random })).toBe(want);
  });

  const now = Date.parse('2026-11-01T00:00:00Z');
  test.each([
    ['0', 0],
    [' 7 ', 7000],
    ['Sun, 01 Nov 2026 00:00:30 GMT', 30_000],
    ['Sat, 31 Oct 2026 23:00:00 GMT', 0],
    ['soon', undefined],
    ['-1', undefined],
    ['1.5', undefined],
  ])('Retry-After %j → %j ms', (value, want) => {
    expect(parseRetryAfter(value, now)).toBe(want);
  });
});
