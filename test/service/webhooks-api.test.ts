import { describe, expect, it } from 'vitest';
import {
  createPatient,
  errorOf,
  LOCAL_HOOK_URL,
  PUBLIC_HOOK_URL,
  patientFields,
  useService,
} from './support/fixtures.js';

const fx = useService();

async function createHook(key: string, body: Record<string, unknown> = {}) {
  return fx().t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    body: { url: LOCAL_HOOK_URL, enabled_events: ['*'], ...body },
  });
}

describe('createWebhook', () => {
  it('returns the endpoint with its whsec_ secret, only in this response', async () => {
    const { t, test } = fx();
    const res = await createHook(test.secret, { description: 'EHR sync', metadata: { team: 'a' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'webhook',
      livemode: false,
      url: LOCAL_HOOK_URL,
      enabled_events: ['*'],
      description: 'EHR sync',
      status: 'enabled',
      api_version: '2026-11-01',
      metadata: { team: 'a' },
    });
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9]{32,64}$/);
    const id = res.body.id;
    const reads = [
      await t.request({ method: 'GET', url: `/v1/webhooks/${id}`, key: test.secret }),
      await t.request({ method: 'GET', url: '/v1/webhooks', key: test.secret }),
      await t.request({
        method: 'POST',
        url: `/v1/webhooks/${id}`,
        key: test.secret,
        body: { description: null },
      }),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(res.body.secret);
      expect(read.text).not.toContain('"secret"');
    }
    const stored = await t.db.get<{ data: string }>('SELECT data FROM webhooks WHERE id = $1', [
      id,
    ]);
    expect(stored?.data).not.toContain('whsec_');
  });

  it('emits no event for endpoint changes', async () => {
    const { t, test } = fx();
    const hook = await createHook(test.secret);
    await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
      body: { status: 'disabled' },
    });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.body.id}`, key: test.secret });
    const events = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(events.body.data).toEqual([]);
  });

  it('applies the URL rules per mode', async () => {
    const { test, live } = fx();
    expect((await createHook(test.secret, { url: 'http://localhost:3000/h' })).status).toBe(200);
    expect((await createHook(test.secret, { url: PUBLIC_HOOK_URL })).status).toBe(200);
    expect((await createHook(live.secret, { url: PUBLIC_HOOK_URL })).status).toBe(200);
    const refused: Array<[string, string]> = [
      [live.secret, LOCAL_HOOK_URL],
      [live.secret, 'http://93.184.215.14/h'],
      // The test app allows private targets (as on loopback); metadata stays refused.
      [live.secret, 'https://169.254.169.254/h'],
      [live.secret, 'https://[::ffff:0:a9fe:a9fe]/h'],
      [test.secret, 'http://93.184.215.14/h'],
      [test.secret, 'https://user:pw@93.184.215.14/h'],
      [test.secret, 'https://93.184.215.14/h#frag'],
    ];
    for (const [key, url] of refused) {
      const res = await createHook(key, { url });
      expect(errorOf(res), url).toEqual({ status: 400, code: 'parameter_invalid', param: 'url' });
      expect(res.text).not.toContain('93.184');
    }
  });

  it('refuses "*" combined with other types, unknown types and unknown fields', async () => {
    const { test } = fx();
    const star = await createHook(test.secret, { enabled_events: ['*', 'patient.created'] });
    expect(errorOf(star)).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'enabled_events',
    });
    const unknownType = await createHook(test.secret, { enabled_events: ['patient.deleted'] });
    expect(errorOf(unknownType)).toMatchObject({ status: 400, code: 'parameter_invalid' });
    const unknownField = await createHook(test.secret, { secret: 'whsec_mine' });
    expect(errorOf(unknownField)).toMatchObject({ status: 400, param: 'secret' });
    const missing = await fx().t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: test.secret,
      body: { url: LOCAL_HOOK_URL },
    });
    expect(errorOf(missing)).toMatchObject({
      status: 400,
      code: 'parameter_missing',
      param: 'enabled_events',
    });
  });
});

describe('updateWebhook', () => {
  it('changes the fields sent, merges metadata and re-enables', async () => {
    const { t, test } = fx();
    const hook = await createHook(test.secret, { metadata: { a: '1', b: '2' } });
    t.clock.now += 3000;
    const res = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
      body: {
        enabled_events: ['patient.created'],
        status: 'disabled',
        metadata: { b: '', c: '3' },
      },
    });
    expect(res.body).toMatchObject({
      url: LOCAL_HOOK_URL,
      enabled_events: ['patient.created'],
      status: 'disabled',
      metadata: { a: '1', c: '3' },
      updated: hook.body.updated + 3,
    });
    const enabled = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
      body: { status: 'enabled' },
    });
    expect(enabled.body.status).toBe('enabled');
  });

  it('checks a new URL and answers 404 across modes', async () => {
    const { t, test, live } = fx();
    const hook = await createHook(test.secret);
    const bad = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
      body: { url: 'http://93.184.215.14/h' },
    });
    expect(errorOf(bad)).toEqual({ status: 400, code: 'parameter_invalid', param: 'url' });
    const other = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.body.id}`,
      key: live.secret,
      body: { status: 'disabled' },
    });
    expect(errorOf(other)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
  });
});

describe('retrieve, list and delete', () => {
  it('pages the endpoints of the key’s mode only', async () => {
    const { t, test, live } = fx();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await createHook(test.secret)).body.id);
    await createHook(live.secret, { url: PUBLIC_HOOK_URL });
    const page = await t.request({ method: 'GET', url: '/v1/webhooks?limit=3', key: test.secret });
    expect(page.body).toMatchObject({ object: 'list', url: '/v1/webhooks', has_more: true });
    expect(page.body.data.map((w: { id: string }) => w.id)).toEqual(ids.slice(0, 3));
    const next = await t.request({
      method: 'GET',
      url: `/v1/webhooks?limit=3&starting_after=${ids[2]}`,
      key: test.secret,
    });
    expect(next.body.data.map((w: { id: string }) => w.id)).toEqual(ids.slice(3));
    expect(next.body.has_more).toBe(false);
    const other = await t.request({
      method: 'GET',
      url: `/v1/webhooks/${ids[0]}`,
      key: live.secret,
    });
    expect(errorOf(other)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
  });

  it('deletes for good, drops pending deliveries, then 404s', async () => {
    const { t, test } = fx();
    const hook = await createHook(test.secret);
    await createPatient(t, test.secret);
    const before = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(before.body.data[0].pending_webhooks).toBe(1);
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
    });
    expect(res.body).toEqual({ id: hook.body.id, object: 'webhook', deleted: true });
    const after = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(after.body.data[0].pending_webhooks).toBe(0);
    const again = await t.request({
      method: 'DELETE',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
    });
    expect(errorOf(again)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
    const get = await t.request({
      method: 'GET',
      url: `/v1/webhooks/${hook.body.id}`,
      key: test.secret,
    });
    expect(get.status).toBe(404);
  });
});

describe('listWebhookDeliveries', () => {
  it('lists one pending delivery per event sent to the endpoint, newest first, paged', async () => {
    const { t, test } = fx();
    const hook = await createHook(test.secret);
    const other = await createHook(test.secret, { enabled_events: ['claim.paid'] });
    for (let i = 1; i <= 3; i++) await createPatient(t, test.secret, patientFields(i));
    const events = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    const eventIds = events.body.data.map((e: { id: string }) => e.id);

    const url = `/v1/webhooks/${hook.body.id}/deliveries`;
    const page = await t.request({ method: 'GET', url: `${url}?limit=2`, key: test.secret });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ object: 'list', url, has_more: true });
    expect(page.body.data.map((d: { event: string }) => d.event)).toEqual(eventIds.slice(0, 2));
    expect(page.body.data[0]).toMatchObject({
      object: 'webhook_delivery',
      livemode: false,
      webhook: hook.body.id,
      event_type: 'patient.created',
      status: 'pending',
      attempt_count: 0,
      attempts: [],
    });
    const rest = await t.request({
      method: 'GET',
      url: `${url}?starting_after=${page.body.data[1].id}`,
      key: test.secret,
    });
    expect(rest.body.data.map((d: { event: string }) => d.event)).toEqual(eventIds.slice(2));
    expect(rest.body.has_more).toBe(false);

    // Not subscribed to patient events: nothing to deliver.
    const none = await t.request({
      method: 'GET',
      url: `/v1/webhooks/${other.body.id}/deliveries`,
      key: test.secret,
    });
    expect(none.body.data).toEqual([]);
  });

  it('answers 404 for an unknown endpoint and for one of the other mode', async () => {
    const { t, test, live } = fx();
    const hook = await createHook(test.secret);
    const cross = await t.request({
      method: 'GET',
      url: `/v1/webhooks/${hook.body.id}/deliveries`,
      key: live.secret,
    });
    expect(errorOf(cross)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
    const unknown = await t.request({
      method: 'GET',
      url: '/v1/webhooks/wh_01JD6W7X8Y9Z0A1B2C3D4E5F6G/deliveries',
      key: test.secret,
    });
    expect(errorOf(unknown)).toEqual({ status: 404, code: 'resource_missing', param: 'id' });
  });
});
