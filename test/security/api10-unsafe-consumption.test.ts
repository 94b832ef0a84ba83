/**
 * OWASP API10:2023 Unsafe Consumption of APIs, from the receiver's side: a webhook receiver
 * built on the client's `verifyWebhook` accepts what the service really sent and nothing an
 * attacker can make without the endpoint's secret — another endpoint's secret, a re-dated
 * replay, a forged body under a captured signature. The signature details are in
 * `test/client/webhook.test.ts` and `test/webhooks/verify.test.ts`; this checks that secrets
 * are per endpoint and never readable after creation, which the scheme relies on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookPayload, verifyWebhook } from '../../client/webhook.js';
import { buildSecurityApp, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
let a: { id: string; secret: string };
let b: { id: string; secret: string };

beforeAll(async () => {
  s = await buildSecurityApp();
  const make = async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: s.keys.secret,
      body: { url: 'http://127.0.0.1:9/r', enabled_events: ['*'] },
    });
    return { id: res.body.id as string, secret: res.body.secret as string };
  };
  a = await make();
  b = await make();
});
afterAll(() => s.close());

const event = JSON.stringify({
  id: 'evt_01JD7X5K8M9N2P3Q4R5S6T7V8W',
  object: 'event',
  type: 'patient.created',
  data: { object: {} },
});
const now = 1_800_000_000;

describe('webhook secrets and verification', () => {
  it('each endpoint gets its own whsec_ secret', () => {
    expect(a.secret).toMatch(/^whsec_/);
    expect(b.secret).toMatch(/^whsec_/);
    expect(a.secret).not.toBe(b.secret);
  });

  it('the secret is readable from no other operation', async () => {
    for (const url of [`/v1/webhooks/${a.id}`, '/v1/webhooks?limit=100', '/v1/events?limit=100']) {
      const res = await s.t.request({ method: 'GET', url, key: s.keys.secret });
      expect(res.text).not.toContain(a.secret);
    }
    const updated = await s.t.request({
      method: 'POST',
      url: `/v1/webhooks/${a.id}`,
      key: s.keys.secret,
      body: { description: 'x' },
    });
    expect(updated.text).not.toContain(a.secret);
  });

  it("a payload signed with another endpoint's secret is refused", () => {
    const header = signWebhookPayload(event, b.secret, now);
    expect(verifyWebhook(event, header, a.secret, { now }).error?.code).toBe('signature_mismatch');
    expect(
      verifyWebhook(event, signWebhookPayload(event, a.secret, now), a.secret, { now }).error,
    ).toBeUndefined();
  });

  it('a captured delivery replayed later, or with a new timestamp, is refused', () => {
    const captured = signWebhookPayload(event, a.secret, now);
    expect(verifyWebhook(event, captured, a.secret, { now: now + 3600 }).error?.code).toBe(
      'timestamp_outside_tolerance',
    );
    const redated = captured.replace(`t=${now}`, `t=${now + 3600}`);
    expect(verifyWebhook(event, redated, a.secret, { now: now + 3600 }).error?.code).toBe(
      'signature_mismatch',
    );
  });

  it('a forged body under a captured signature is refused', () => {
    const captured = signWebhookPayload(event, a.secret, now);
    const forged = event.replace('patient.created', 'patient.updated');
    expect(verifyWebhook(forged, captured, a.secret, { now }).error?.code).toBe(
      'signature_mismatch',
    );
  });
});
