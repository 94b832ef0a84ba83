/**
 * The timeout settings: read and checked from the environment, and applied to the Node server
 * so that, by default, a connection holding a half-sent request closes within 60 s.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_HTTP_CONFIG,
  DEFAULT_RETENTION_CONFIG,
  loadConfig,
  loadRetentionConfig,
} from '../../server/config.js';
import { serverTimeoutOptions } from '../../server/http/timeouts.js';
import { makeHandlers } from '../fixtures/http/handlers.js';
import * as table from '../fixtures/http/routes.js';
import { buildTestApp } from '../support/app.js';

describe('timeout settings', () => {
  it('default to 10 s for headers, 30 s for the request, 72 s keep-alive', () => {
    const config = loadConfig({});
    expect(config.headersTimeoutMs).toBe(10_000);
    expect(config.requestTimeoutMs).toBe(30_000);
    expect(config.keepAliveTimeoutMs).toBe(72_000);
  });

  it('are read from the environment', () => {
    const config = loadConfig({
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '1000',
    });
    expect([config.headersTimeoutMs, config.requestTimeoutMs, config.keepAliveTimeoutMs]).toEqual([
      2000, 5000, 1000,
    ]);
  });

  it.each([
    [{ REQUEST_TIMEOUT_MS: '0' }, /REQUEST_TIMEOUT_MS must be a positive whole number/],
    [{ HEADERS_TIMEOUT_MS: '1.5' }, /HEADERS_TIMEOUT_MS must be a positive whole number/],
    [{ KEEP_ALIVE_TIMEOUT_MS: 'soon' }, /KEEP_ALIVE_TIMEOUT_MS must be/],
    [
      { HEADERS_TIMEOUT_MS: '40000', REQUEST_TIMEOUT_MS: '30000' },
      /HEADERS_TIMEOUT_MS \(40000\) must not be more than REQUEST_TIMEOUT_MS \(30000\)/,
    ],
  ])('refuses %o in one line', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('are set on the server, with deadlines checked every second', async () => {
    const t = await buildTestApp({
      table,
      handlers: makeHandlers({ executions: {}, writeDelayMs: 0 }),
    });
    try {
      const server = t.app.server as typeof t.app.server & { connectionsCheckingInterval?: number };
      expect(server.headersTimeout).toBe(DEFAULT_HTTP_CONFIG.headersTimeoutMs);
      expect(server.requestTimeout).toBe(DEFAULT_HTTP_CONFIG.requestTimeoutMs);
      expect(server.keepAliveTimeout).toBe(DEFAULT_HTTP_CONFIG.keepAliveTimeoutMs);
      expect(server.connectionsCheckingInterval).toBe(1000);
      // The promise: a half-sent request is cut off within its timeout plus one check.
      expect(DEFAULT_HTTP_CONFIG.requestTimeoutMs + 1000).toBeLessThanOrEqual(60_000);
    } finally {
      await t.close();
    }
  });
});

describe('timeouts given in code', () => {
  it('clamp a headers timeout above the request timeout to it', () => {
    const options = serverTimeoutOptions({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 2_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(options.http.headersTimeout).toBe(2_000);
    expect(options.requestTimeout).toBe(2_000);
  });

  it('check deadlines at least as often as the shortest timeout', () => {
    const options = serverTimeoutOptions({
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      keepAliveTimeoutMs: 5_000,
    });
    expect(options.http.connectionsCheckingInterval).toBe(300);
  });
});

describe('retention settings', () => {
  it('default to a round every 5 minutes and buckets kept 1 hour', () => {
    expect(loadRetentionConfig({})).toEqual({ intervalMs: 300_000, bucketIdleMs: 3_600_000 });
    expect(loadConfig({}).retention).toEqual(DEFAULT_RETENTION_CONFIG);
  });

  it('take 0 to turn the schedule off', () => {
    expect(loadRetentionConfig({ RETENTION_INTERVAL_MS: '0' }).intervalMs).toBe(0);
  });

  it.each([
    [{ RETENTION_INTERVAL_MS: '-5' }, /RETENTION_INTERVAL_MS must be a whole number/],
    [{ RETENTION_BUCKET_IDLE_MS: '0' }, /RETENTION_BUCKET_IDLE_MS must be a positive/],
  ])('refuses %o', (env, message) => {
    expect(() => loadRetentionConfig(env)).toThrow(message);
  });
});
