import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getEvent, listEvents } from '../../server/repos/events.js';
import { getRecord } from '../../server/repos/records.js';
import { deliveryAttempts } from '../../server/repos/webhook-deliveries.js';
import { listWebhookDeliveries } from '../../server/repos/webhook-delivery-list.js';
import { WEBHOOK } from '../../server/resources/webhook.js';
import type { RetrySchedule } from '../../server/webhooks/schedule.js';
import type { Resolver } from '../../server/webhooks/url-guard.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import { useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf, emit } from './support/fixtures.js';
import { RESPONSE_BODY, type Receiver, startReceiver, waitFor } from './support/receiver.js';

const FAST: RetrySchedule = { test: [50, 100, 200], live: [50, 100, 200], jitter: 0 };

describe('delivery worker [sqlite]', () => {
  const ctx = useTestDb('sqlite', { fresh: 'each' });
  let receiver: Receiver;
  let worker: DeliveryWorker | undefined;
  const start = (schedule: RetrySchedule = FAST, resolver?: Resolver) => {
    worker = startDeliveryWorker({
      db: ctx.db,
      allowPrivateTargets: true,
      schedule,
      pollIntervalMs: 10,
      ...(resolver ? { resolver } : {}),
    });
    return worker;
  };

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await receiver.close();
  });

  it('delivers each event once, signed, with the documented headers', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    receiver.secrets.set('/a', hook.secret);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await emit(ctx.db));
    start();
    await waitFor(() => receiver.received.length >= 5, 10_000, 'five deliveries');
    await worker?.stop();
    expect(receiver.received.map((r) => r.eventId).sort()).toEqual([...ids].sort());
    for (const got of receiver.received) {
      expect(got.verified, got.error ?? '').toBe(true);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toMatch(/^PatientCare-Webhooks\//);
      expect(got.headers['patientcare-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    }
    const rows = await deliveriesOf(ctx.db, hook.id);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ['succeeded', 1]));
    // Acknowledged by its only endpoint: nothing pending any more.
    expect((await getEvent(ctx.db, ids[0]!, false))?.pending_webhooks).toBe(0);
  });

  it('sends pending_webhooks as it stands at send time', async () => {
    const a = await addWebhook(ctx.db, receiver.url('/a'));
    const b = await addWebhook(ctx.db, receiver.url('/b'));
    receiver.secrets.set('/a', a.secret);
    receiver.secrets.set('/b', b.secret);
    receiver.status = (path) => (path === '/b' ? 500 : 200);
    await emit(ctx.db);
    start({ ...FAST, test: [5000] });
    await waitFor(() => receiver.received.length >= 2, 10_000, 'both endpoints');
    const counts = receiver.received.map((r) => JSON.parse(r.rawBody).pending_webhooks);
    expect(counts).toEqual([2, 2]); // leased together: both still pending when sent
    await waitFor(async () => (await deliveriesOf(ctx.db, a.id))[0]?.status === 'succeeded');
    const event = JSON.parse(receiver.received[0]!.rawBody) as { id: string };
    expect((await getEvent(ctx.db, event.id, false))?.pending_webhooks).toBe(1);
  });

  it('loses nothing while the receiver is down, and repeats only retried event ids', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    receiver.secrets.set('/a', hook.secret);
    await receiver.down();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(await emit(ctx.db));
    start({ test: [100, 200, 400, 800, 1600, 3200], live: [], jitter: 0.2 });
    // Every delivery has failed at least once before the receiver comes back.
    await waitFor(async () => {
      const rows = await deliveriesOf(ctx.db, hook.id);
      return rows.every((r) => r.attempts >= 1);
    });
    for (let i = 0; i < 5; i++) ids.add(await emit(ctx.db)); // written while it is down
    await receiver.up();
    await waitFor(async () => {
      const rows = await deliveriesOf(ctx.db, hook.id);
      return rows.length === 25 && rows.every((r) => r.status === 'succeeded');
    }, 20_000);
    const got = receiver.received.map((r) => r.eventId);
    expect(new Set(got)).toEqual(ids);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    // A repeat is only ever another attempt of the same delivery, never a stray event.
    const rows = await deliveriesOf(ctx.db, hook.id);
    const attemptsByEvent = new Map(rows.map((r) => [r.event_id, r.attempts]));
    for (const id of ids) {
      expect(got.filter((g) => g === id).length).toBeLessThanOrEqual(attemptsByEvent.get(id)!);
    }
    const first = rows.find((r) => r.attempts > 1)!;
    const attempts = await deliveryAttempts(ctx.db, first.id);
    expect(attempts.at(-1)).toMatchObject({ status_code: 200, succeeded: 1 });
    expect(attempts[0]).toMatchObject({ status_code: null, error: 'connection_refused' });
    expect((await getRecord(WEBHOOK, ctx.db, hook.id, false))?.status).toBe('enabled');
  });

  it('backs off on non-2xx, then disables the endpoint and emits webhook.disabled', async () => {
    const failing = await addWebhook(ctx.db, receiver.url('/fail'));
    const healthy = await addWebhook(ctx.db, receiver.url('/ok'));
    receiver.secrets.set('/fail', failing.secret);
    receiver.secrets.set('/ok', healthy.secret);
    receiver.status = (path) => (path === '/fail' ? 503 : 204);
    const eventId = await emit(ctx.db);
    start();
    await waitFor(
      () => receiver.received.some((r) => r.type === 'webhook.disabled'),
      10_000,
      'webhook.disabled at the healthy endpoint',
    );
    const [row] = await deliveriesOf(ctx.db, failing.id);
    expect(row).toMatchObject({ event_id: eventId, status: 'failed', attempts: 4 });
    const attempts = await deliveryAttempts(ctx.db, row!.id);
    expect(attempts.map((a) => a.status_code)).toEqual([503, 503, 503, 503]);
    const page = await listWebhookDeliveries(ctx.db, { webhookId: failing.id, livemode: false });
    const starts = page.data[0]!.attempts.map((a) => a.created);
    expect(page.data[0]).toMatchObject({ status: 'failed', attempt_count: 4, next_attempt: null });
    expect(starts).toHaveLength(4);
    expect(JSON.stringify(page)).not.toContain(RESPONSE_BODY); // no response bodies kept

    const stored = await getRecord(WEBHOOK, ctx.db, failing.id, false);
    expect(stored?.status).toBe('disabled');
    const events = await listEvents(ctx.db, { livemode: false, type: 'webhook.disabled' });
    expect(events.data).toHaveLength(1);
    const disabled = events.data[0] as unknown as {
      data: { object: Record<string, unknown> };
      request: unknown;
    };
    expect(disabled.data.object).toMatchObject({ id: failing.id, status: 'disabled' });
    expect(disabled.data.object).not.toHaveProperty('secret');
    expect(disabled.request).toEqual({ id: null, idempotency_key: null });
    // The disabled endpoint is not sent its own obituary; the healthy one got both events.
    expect(receiver.received.filter((r) => r.path === '/fail')).toHaveLength(4);
    expect(receiver.received.filter((r) => r.path === '/ok').map((r) => r.type)).toEqual([
      'patient.created',
      'webhook.disabled',
    ]);
    // No more deliveries are queued for a disabled endpoint.
    await emit(ctx.db);
    expect(await deliveriesOf(ctx.db, failing.id)).toHaveLength(1);
  });

  it('waits the scheduled delay between attempts', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/fail'));
    receiver.secrets.set('/fail', hook.secret);
    receiver.status = () => 500;
    await emit(ctx.db);
    start({ test: [100, 300], live: [], jitter: 0 });
    await waitFor(async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'failed');
    const [row] = await deliveriesOf(ctx.db, hook.id);
    const rows = await ctx.db.all<{ started_at: number }>(
      'SELECT started_at FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
      [row!.id],
    );
    const gaps = rows.slice(1).map((r, i) => Number(r.started_at) - Number(rows[i]!.started_at));
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(300);
  });

  it('refuses at delivery a live URL whose name now resolves to the metadata address', async () => {
    const hook = await addWebhook(ctx.db, 'https://hooks.example.com/pc', { livemode: true });
    await emit(ctx.db, { livemode: true });
    start({ test: [], live: [], jitter: 0 }, async () => [
      { address: '169.254.169.254', family: 4 },
    ]);
    await waitFor(async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'failed');
    const [row] = await deliveriesOf(ctx.db, hook.id);
    expect(await deliveryAttempts(ctx.db, row!.id)).toEqual([
      { attempt: 1, status_code: null, succeeded: 0, error: 'url_refused' },
    ]);
    expect(receiver.received).toHaveLength(0);
  });

  it('gives up deliveries of an endpoint its owner disabled, without sending', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    await emit(ctx.db);
    await ctx.db.run("UPDATE webhooks SET status = 'disabled' WHERE id = $1", [hook.id]);
    start();
    await waitFor(async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'failed');
    expect(receiver.received).toHaveLength(0);
    // Disabled by its owner: no webhook.disabled event (that is for exhausted retries).
    const events = await listEvents(ctx.db, { livemode: false, type: 'webhook.disabled' });
    expect(events.data).toHaveLength(0);
  });
});
