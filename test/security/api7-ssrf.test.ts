/**
 * OWASP API7:2023 Server Side Request Forgery, through the API: a live key cannot point a
 * webhook (create or update) at private, loopback, link-local, metadata or IPv6-embedded
 * internal addresses, in any spelling; the refusal names neither the address nor a DNS
 * result. The URL guard's own table (`test/webhooks/url-guard.test.ts`) covers the classes in
 * depth, DNS rebinding included. And the delivery worker never follows a redirect: a 302 to
 * another local listener is a failed attempt, the second listener hears nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../server/webhooks/worker.js';
import { useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf, emit } from '../webhooks/support/fixtures.js';
import { waitFor } from '../webhooks/support/receiver.js';
import { buildSecurityApp, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

// IP literals only, so no test depends on DNS.
const INTERNAL = [
  'https://127.0.0.1/h',
  'https://127.255.255.254/h',
  'https://2130706433/h',
  'https://0x7f000001/h',
  'https://0177.0.0.1/h',
  'https://0.0.0.0/h',
  'https://10.0.0.1/h',
  'https://172.16.5.4/h',
  'https://192.168.1.1/h',
  'https://169.254.169.254/latest/meta-data/',
  'https://169.254.170.2/v2/credentials',
  'https://100.100.100.200/h',
  'https://[::1]/h',
  'https://[::]/h',
  'https://[::ffff:127.0.0.1]/h',
  'https://[::ffff:169.254.169.254]/h',
  'https://[0:0:0:0:0:ffff:a00:1]/h',
  'https://[fe80::1]/h',
  'https://[fd00:ec2::254]/h',
  'https://[64:ff9b::a9fe:a9fe]/h',
  'https://[2002:a9fe:a9fe::1]/h',
  'https://localhost/h',
  'https://metadata.google.internal/h',
  'http://127.0.0.1:8080/h',
  'http://localhost:8080/h',
];

describe('live-mode webhook URLs', () => {
  it.each(INTERNAL)('createWebhook %s → 400 param url, address not echoed', async (url) => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: s.keys.live,
      body: { url, enabled_events: ['*'] },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.param).toBe('url');
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    expect(res.body.error.message).not.toContain(host);
  });

  it.each(INTERNAL)('updateWebhook to %s → 400, the stored URL unchanged', async (url) => {
    const res = await s.t.request({
      method: 'POST',
      url: `/v1/webhooks/${s.live.wh}`,
      key: s.keys.live,
      body: { url },
    });
    expect(res.status, res.text).toBe(400);
    const stored = await s.t.request({
      method: 'GET',
      url: `/v1/webhooks/${s.live.wh}`,
      key: s.keys.live,
    });
    expect(stored.body.url).toBe('https://93.184.215.14/hooks');
  });

  it('a public address is accepted (the refusals above are not blanket)', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: s.keys.live,
      body: { url: 'https://93.184.215.15/hooks', enabled_events: ['*'] },
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe('delivery does not follow redirects', () => {
  const ctx = useTestDb('sqlite', { fresh: 'each' });
  const servers: Server[] = [];
  const listen = (handler: Parameters<typeof createServer>[1]) =>
    new Promise<string>((resolve) => {
      const server = createServer(handler);
      servers.push(server);
      server.listen(0, '127.0.0.1', () =>
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
      );
    });
  afterAll(async () => {
    for (const server of servers) await new Promise((r) => server.close(r));
  });

  it('a 302 to another local listener is a failed attempt; the target hears nothing', async () => {
    let targetHits = 0;
    let redirectorHits = 0;
    const target = await listen((_req, res) => {
      targetHits++;
      res.writeHead(200).end();
    });
    const redirector = await listen((_req, res) => {
      redirectorHits++;
      res.writeHead(302, { location: `${target}/stolen` }).end();
    });
    const hook = await addWebhook(ctx.db, `${redirector}/hook`);
    await emit(ctx.db);
    const worker = startDeliveryWorker({
      db: ctx.db,
      schedule: { test: [20, 20], live: [20, 20], jitter: 0 },
      pollIntervalMs: 10,
    });
    try {
      await waitFor(() => redirectorHits >= 1, 10_000, 'the first attempt');
      await waitFor(
        async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status !== 'pending',
        10_000,
        'the delivery to settle',
      );
    } finally {
      await worker.stop();
    }
    expect(targetHits).toBe(0);
    const [delivery] = await deliveriesOf(ctx.db, hook.id);
    expect(delivery?.status).not.toBe('succeeded');
  });
});
