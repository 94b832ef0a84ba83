import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { makeKey } from '../support/keys.js';

let t: FixtureApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const widget = { name: { family: 'Doe' } };
const create = (
  app: FixtureApp,
  idempotencyKey: string | undefined,
  body: unknown = widget,
  key = app.keys.secret.secret,
) =>
  app.request({
    method: 'POST',
    url: '/v1/widgets',
    key,
    body,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });

async function widgetCount(app: FixtureApp): Promise<number> {
  const row = await app.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM fixture_widgets');
  return Number(row?.n);
}

describe('idempotent POSTs', () => {
  it('replays the first response byte for byte, with Idempotent-Replayed', async () => {
    t = await fixtureApp();
    const first = await create(t, 'k-1');
    const again = await create(t, 'k-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['request-id']).not.toBe(first.headers['request-id']);
    expect(t.state.executions.createWidget).toBe(1);
    expect(await widgetCount(t)).toBe(1);
  });

  it('treats key order in the body as the same request', async () => {
    t = await fixtureApp();
    const body = { name: { family: 'Doe', given: ['A'] }, gender: 'other' };
    await create(t, 'k-order', body);
    const reordered = await create(t, 'k-order', {
      gender: 'other',
      name: { given: ['A'], family: 'Doe' },
    });
    expect(reordered.headers['idempotent-replayed']).toBe('true');
  });

  it('the same key with another body → 400 idempotency_key_reused', async () => {
    t = await fixtureApp();
    await create(t, 'k-2');
    const other = await create(t, 'k-2', { name: { family: 'Other' } });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({
      type: 'idempotency_error',
      code: 'idempotency_key_reused',
    });
  });

  it('the same key on another path → 400 idempotency_key_reused', async () => {
    t = await fixtureApp();
    await create(t, 'k-3');
    const token = await t.request({
      method: 'POST',
      url: '/v1/widgets/search',
      key: t.keys.secret.secret,
      body: widget,
      idempotencyKey: 'k-3',
    });
    expect(token.status).toBe(400);
  });

  it('scopes keys per account and mode, not per API key', async () => {
    t = await fixtureApp();
    const other = await makeKey(t.db);
    const live = await makeKey(t.db, { livemode: true });
    await create(t, 'k-4');
    const res = await create(t, 'k-4', widget, other.secret);
    expect(res.headers['idempotent-replayed']).toBe('true');
    expect(t.state.executions.createWidget).toBe(1);
    const otherMode = await create(t, 'k-4', widget, live.secret);
    expect(otherMode.headers['idempotent-replayed']).toBeUndefined();
    expect(t.state.executions.createWidget).toBe(2);
  });

  it('runs 50 concurrent requests with one key exactly once', async () => {
    t = await fixtureApp();
    t.state.writeDelayMs = 20;
    const app = t;
    const responses = await Promise.all(Array.from({ length: 50 }, () => create(app, 'k-many')));
    expect(t.state.executions.createWidget).toBe(1);
    expect(await widgetCount(t)).toBe(1);
    const ok = responses.filter((r) => r.status === 200);
    const busy = responses.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(50);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    for (const r of busy) expect(r.body.error.code).toBe('idempotency_key_in_use');
    // Afterwards every retry is a replay of the one result.
    const later = await create(t, 'k-many');
    expect(later.body.id).toBe(ok[0]!.body.id);
  });

  it('does not store requests rejected before execution', async () => {
    t = await fixtureApp();
    const invalid = await create(t, 'k-5', { name: {} });
    expect(invalid.status).toBe(400);
    const refused = await create(t, 'k-5', widget, t.keys.readOnly.secret);
    expect(refused.status).toBe(403);
    // Same key, now a valid request: it runs (nothing was stored for the rejected ones).
    const ok = await create(t, 'k-5', { name: { family: 'Fixed' } });
    expect(ok.status).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
    expect(t.state.executions.createWidget).toBe(1);
  });

  it('does not store a failure without a write: a retry runs again', async () => {
    t = await fixtureApp();
    const url = '/v1/widgets/wid_01JD7X5K8M9N2P3Q4R5S6T7V8W';
    const send = () =>
      t!.request({
        method: 'POST',
        url,
        key: t!.keys.secret.secret,
        body: {},
        idempotencyKey: 'k-6',
      });
    expect((await send()).status).toBe(404);
    expect((await send()).status).toBe(404);
    expect(t.state.executions.renameWidget).toBe(2);
  });

  it('does not store a handler answer that wrote nothing (search)', async () => {
    t = await fixtureApp();
    const send = () =>
      t!.request({
        method: 'POST',
        url: '/v1/widgets/search',
        key: t!.keys.secret.secret,
        body: { family_name: 'D' },
        idempotencyKey: 'k-7',
      });
    await send();
    const second = await send();
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(t.state.executions.searchWidgets).toBe(2);
  });

  it('without an Idempotency-Key every POST runs', async () => {
    t = await fixtureApp();
    await create(t, undefined);
    await create(t, undefined);
    expect(t.state.executions.createWidget).toBe(2);
    expect(await widgetCount(t)).toBe(2);
  });

  it('stores the response in the write transaction: a failed write stores nothing', async () => {
    t = await fixtureApp();
    // Make the insert fail inside the transaction (the table is gone): 500, nothing stored,
    // and the key is free again.
    await t.db.run('ALTER TABLE fixture_widgets RENAME TO fixture_widgets_away');
    const failed = await create(t, 'k-8');
    expect(failed.status).toBe(500);
    const row = await t.db.get('SELECT * FROM idempotency_keys WHERE idempotency_key = $1', [
      'k-8',
    ]);
    expect(row).toBeUndefined();
    await t.db.run('ALTER TABLE fixture_widgets_away RENAME TO fixture_widgets');
    const retried = await create(t, 'k-8');
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });
});
