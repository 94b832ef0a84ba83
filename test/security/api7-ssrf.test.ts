/**
 * OWASP API7:2023 Server Side Request Forgery, through the API. On a hosted service (the
 * operator has not allowed private targets, `WEBHOOK_ALLOW_PRIVATE_TARGETS`), neither a live
 * nor a test key can point a webhook (create or update) at private, loopback, link-local,
 * metadata or IPv6-embedded internal addresses, in any spelling (mapped, translated,
 * compatible, NAT64, 6to4, Teredo, ISATAP); the refusal names neither the address nor a DNS
 * result. Nor can a test key use the deliveries list as a port scanner: the worker refuses a
 * loopback receiver before connecting. With the opt-in, private and loopback targets work in
 * both modes while metadata and link-local stay refused. The URL guard's own table
 * (`test/webhooks/url-guard.test.ts`) covers the classes in depth, DNS rebinding included.
 * And the delivery worker never follows a redirect: a 302 to another local listener is a
 * failed attempt, the second listener hears nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { loadBackgroundConfig } from '../../server/webhooks/background.js';
import { startDeliveryWorker } from '../../server/webhooks/worker.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';
import { addWebhook, deliveriesOf, emit } from '../webhooks/support/fixtures.js';
import { waitFor } from '../webhooks/support/receiver.js';
import { buildSecurityApp, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp({ config: { allowPrivateWebhookTargets: false } });
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
  'https://[::ffff:0:127.0.0.1]/h',
  'https://[::ffff:0:a9fe:a9fe]/h',
  'https://[::ffff:0:a00:1]/h',
  'https://[::a9fe:a9fe]/h',
  'https://[64:ff9b::7f00:1]/h',
  'https://[2002:7f00:1::1]/h',
  'https://[2001:0:a9fe:a9fe::1]/h',
  'https://[2001:0:808:808::f5ff:fffe]/h',
  'https://[2606:4700::5efe:a9fe:a9fe]/h',
  'https://localhost/h',
  'https://metadata.google.internal/h',
  'http://127.0.0.1:8080/h',
  'http://localhost:8080/h',
];

describe.each([
  ['live', () => s.keys.live, () => s.live.wh, 'https://93.184.215.14/hooks'],
  ['test', () => s.keys.secret, () => s.test.wh, 'https://93.184.215.14/test-hooks'],
])('%s-mode webhook URLs on a hosted service', (_mode, key, hook, storedUrl) => {
  it.each(INTERNAL)('createWebhook %s → 400 param url, address not echoed', async (url) => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: key(),
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
      url: `/v1/webhooks/${hook()}`,
      key: key(),
      body: { url },
    });
    expect(res.status, res.text).toBe(400);
    const stored = await s.t.request({
      method: 'GET',
      url: `/v1/webhooks/${hook()}`,
      key: key(),
    });
    expect(stored.body.url).toBe(storedUrl);
  });

  it('a public address is accepted (the refusals above are not blanket)', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: key(),
      body: { url: 'https://93.184.215.15/hooks', enabled_events: ['*'] },
    });
    expect(res.status, res.text).toBe(200);
  });
});

describe("the operator's opt-in for private targets", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { allowPrivateWebhookTargets: true } });
  });
  afterAll(() => t.close());
  const create = async (livemode: boolean, url: string) =>
    t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: (await makeKey(t.db, { livemode })).secret,
      body: { url, enabled_events: ['*'] },
    });

  it.each([
    [true, 'https://10.0.0.1/h'],
    [true, 'https://127.0.0.1:8443/h'],
    [true, 'https://[fd12::1]/h'],
    [false, 'http://127.0.0.1:9/h'],
    [false, 'http://localhost:9/h'],
    [false, 'https://192.168.1.1/h'],
  ])('allows loopback and private targets in both modes (live %s) %s', async (live, url) => {
    const res = await create(live, url);
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    'https://169.254.169.254/h',
    'https://[::ffff:0:a9fe:a9fe]/h',
    'https://[64:ff9b::a9fe:a9fe]/h',
    'https://[fd00:ec2::254]/h',
    'https://0.0.0.0/h',
    'https://[fe80::1]/h',
    'https://100.64.0.1/h',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h',
  ])('still refuses metadata, link-local and other special ranges: %s', async (url) => {
    for (const live of [true, false]) {
      const res = await create(live, url);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.param).toBe('url');
    }
  });
});

describe('WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  it.each([
    [{}, true],
    [{ HOST: '127.0.0.1' }, true],
    [{ HOST: '::1' }, true],
    [{ HOST: 'localhost' }, true],
    [{ HOST: '0.0.0.0' }, false],
    [{ HOST: '::' }, false],
    [{ HOST: '10.0.0.5' }, false],
    [{ HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, true],
    [{ HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }, false],
  ])('%o → %s (on by default only when listening on loopback)', (env, want) => {
    expect(loadConfig(env).allowPrivateWebhookTargets).toBe(want);
    expect(loadBackgroundConfig(env).allowPrivateTargets).toBe(want);
  });

  it('refuses a value it cannot read, naming the variable', () => {
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false/,
    );
  });
});

describe('a test key cannot port-scan through deliveries on a hosted service', () => {
  const ctx = useTestDb('sqlite', { fresh: 'each' });

  it('the worker refuses a loopback receiver before connecting: url_refused, nothing heard', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      // Stored earlier (say, before the operator turned the opt-in off): judged again per delivery.
      const hook = await addWebhook(ctx.db, `http://127.0.0.1:${port}/hook`);
      await emit(ctx.db);
      const worker = startDeliveryWorker({
        db: ctx.db,
        allowPrivateTargets: false,
        schedule: { test: [], live: [], jitter: 0 },
        pollIntervalMs: 10,
      });
      try {
        await waitFor(
          async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'failed',
          10_000,
          'the delivery to fail',
        );
      } finally {
        await worker.stop();
      }
      const [delivery] = await deliveriesOf(ctx.db, hook.id);
      const attempts = await ctx.db.all<{ error: string | null; status_code: number | null }>(
        'SELECT error, status_code FROM webhook_delivery_attempts WHERE delivery_id = $1',
        [delivery!.id],
      );
      expect(attempts).toEqual([{ error: 'url_refused', status_code: null }]);
      expect(hits).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
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
      allowPrivateTargets: true,
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
