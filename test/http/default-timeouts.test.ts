/**
 * The issue-22 promise with the default settings, in real time: a connection that sends
 * headers and part of a body, then idles or dribbles a byte every few seconds, is closed
 * within 60 s (30 s request timeout, checked every second), with 408 `request_timeout`.
 * About 31 s of waiting on sockets, nearly no CPU; both cases run at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_CONFIG } from '../../server/config.js';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { rawExchange } from './support/raw-http.js';

let t: FixtureApp;
let port: number;
beforeAll(async () => {
  t = await fixtureApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t.close());

describe('default timeouts', () => {
  it('close a half-sent body, idle or dribbled, within 60 s', { timeout: 90_000 }, async () => {
    const head = `POST /v1/widgets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.keys.secret.secret}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`;
    const dribble: Array<string | number> = [head];
    for (let i = 0; i < 30; i++) dribble.push(3_000, ' ');
    const [idle, dribbled] = await Promise.all([
      rawExchange(port, [head], 70_000),
      rawExchange(port, dribble, 70_000),
    ]);
    for (const answer of [idle, dribbled]) {
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body).error.code).toBe('request_timeout');
      expect(answer.closedAfterMs).toBeGreaterThanOrEqual(
        DEFAULT_HTTP_CONFIG.requestTimeoutMs - 100,
      );
      expect(answer.closedAfterMs).toBeLessThan(60_000);
    }
  });
});
