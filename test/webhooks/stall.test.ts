/**
 * No receiver can stall delivery (issue 22, item 4): a receiver that sends `200` headers and
 * never ends the body. Every attempt ends at its deadline and frees its socket, one endpoint
 * holds at most its cap of slots, and test-mode receivers never hold up a live delivery. The
 * 2 s bounds are the contract's ("the next event still arrives within 2 s"), not speed targets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getRecord } from '../../server/repos/records.js';
import { deliveryAttempts } from '../../server/repos/webhook-deliveries.js';
import { WEBHOOK } from '../../server/resources/webhook.js';
import type { RetrySchedule } from '../../server/webhooks/schedule.js';
import { createHttpTransport, type Transport } from '../../server/webhooks/transport.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf, emit } from './support/fixtures.js';
import { type HangingReceiver, startHangingReceiver } from './support/hanging-receiver.js';
import { type Receiver, startReceiver, waitFor } from './support/receiver.js';

await describeEachDatabase('a receiver that never ends its body', (dialect) => {
  const ctx = useTestDb(dialect, { fresh: 'each' });
  let hanging: HangingReceiver | undefined;
  let receiver: Receiver | undefined;
  let worker: DeliveryWorker | undefined;
  const transports: Array<ReturnType<typeof createHttpTransport>> = [];

  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    for (const t of transports.splice(0)) t.close();
    await hanging?.close();
    await receiver?.close();
    hanging = undefined;
    receiver = undefined;
  });

  it('ends the attempt at its deadline, frees the socket, and retries per schedule', async () => {
    hanging = await startHangingReceiver();
    const hook = await addWebhook(ctx.db, hanging.url('/hang'));
    await emit(ctx.db);
    const schedule: RetrySchedule = { test: [1500], live: [], jitter: 0 };
    worker = startDeliveryWorker({
      db: ctx.db,
      allowPrivateTargets: true,
      schedule,
      timeoutMs: 400,
      pollIntervalMs: 10,
    });
    const h = hanging;
    await waitFor(() => h.hits.get('/hang') === 1, 5_000, 'the first attempt to arrive');
    await waitFor(async () => (await deliveriesOf(ctx.db, hook.id))[0]?.attempts === 1);
    const [first] = await deliveryAttempts(ctx.db, (await deliveriesOf(ctx.db, hook.id))[0]!.id);
    // The headers said 200, but the body never ended: a failed attempt, kept as a timeout.
    expect(first).toMatchObject({ status_code: 200, error: 'timeout', succeeded: 0 });
    // Released after the deadline, well before the retry is due.
    await waitFor(() => h.open === 0, 1_000, 'the hung socket to close');
    expect(h.hits.get('/hang')).toBe(1);
    const row = await ctx.db.get<{ status: string; next_attempt_at: number; updated_at: number }>(
      'SELECT status, next_attempt_at, updated_at FROM webhook_deliveries WHERE webhook_id = $1',
      [hook.id],
    );
    expect(row?.status).toBe('pending');
    expect(Number(row?.next_attempt_at) - Number(row?.updated_at)).toBeGreaterThanOrEqual(1400);
    // The retry comes, hangs too, ends at its deadline; the schedule is spent, so the
    // endpoint is disabled as for any other failure.
    await waitFor(async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'failed');
    const attempts = await deliveryAttempts(ctx.db, (await deliveriesOf(ctx.db, hook.id))[0]!.id);
    expect(attempts.map((a) => a.error)).toEqual(['timeout', 'timeout']);
    expect(h.hits.get('/hang')).toBe(2);
    expect((await getRecord(WEBHOOK, ctx.db, hook.id, false))?.status).toBe('disabled');
    await waitFor(() => h.open === 0, 1_000, 'the second hung socket to close');
  });

  it('keeps a hung endpoint to its cap; a healthy endpoint still gets its next event', async () => {
    hanging = await startHangingReceiver();
    receiver = await startReceiver();
    const hung = await addWebhook(ctx.db, hanging.url('/hang'), { events: ['patient.updated'] });
    const healthy = await addWebhook(ctx.db, receiver.url('/ok'), { events: ['patient.created'] });
    receiver.secrets.set('/ok', healthy.secret);
    // 100 deliveries due at the hung endpoint before anything else.
    for (let i = 0; i < 100; i++) await emit(ctx.db, { type: 'patient.updated' });
    worker = startDeliveryWorker({
      db: ctx.db,
      allowPrivateTargets: true,
      schedule: { test: [60_000], live: [], jitter: 0 },
      timeoutMs: 3_000,
      concurrency: 8,
      endpointConcurrency: 3,
      pollIntervalMs: 10,
    });
    const h = hanging;
    const r = receiver;
    await waitFor(() => h.open === 3, 5_000, 'the hung endpoint to fill its cap');
    const sent = Date.now();
    const eventId = await emit(ctx.db, { type: 'patient.created' });
    await waitFor(() => r.received.some((x) => x.eventId === eventId), 2_000, 'the next event');
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(r.received.every((x) => x.verified)).toBe(true);
    // The hung endpoint never had more than its cap at once, and still none has ended.
    expect(h.maxOpen).toBe(3);
    const hungRows = await deliveriesOf(ctx.db, hung.id);
    expect(hungRows.filter((d) => d.attempts > 0)).toHaveLength(0);
    // Its first attempts end at the deadline and the next three go out.
    await waitFor(() => (h.hits.get('/hang') ?? 0) >= 6, 6_000, 'the next attempts');
    expect(h.maxOpen).toBeLessThanOrEqual(3);
  });

  it('40 hanging test-mode receivers do not delay a live delivery', async () => {
    hanging = await startHangingReceiver();
    receiver = await startReceiver();
    for (let i = 0; i < 40; i++) await addWebhook(ctx.db, hanging.url(`/test-${i}`));
    await emit(ctx.db); // 40 test-mode deliveries, all to receivers that hang
    const r = receiver;
    // Live endpoints must be https; the loopback receiver speaks http, so this transport
    // sends the live request over http. Everything under test (the worker's per-mode slots,
    // the transport's per-mode agents and deadline) is the production code.
    const inner = createHttpTransport();
    transports.push(inner);
    const transport: Transport = (request) =>
      inner({
        ...request,
        target: {
          ...request.target,
          url: new URL(request.target.url.href.replace(/^https:/, 'http:')),
        },
      });
    const live = await addWebhook(ctx.db, `https://127.0.0.1:${receiver.port}/live`, {
      livemode: true,
    });
    r.secrets.set('/live', live.secret);
    worker = startDeliveryWorker({
      db: ctx.db,
      allowPrivateTargets: true,
      transport,
      schedule: { test: [60_000], live: [60_000], jitter: 0 },
      timeoutMs: 5_000,
      concurrency: 32,
      pollIntervalMs: 10,
    });
    const h = hanging;
    await waitFor(() => h.open === 32, 5_000, 'the test-mode slots to fill with hung receivers');
    const sent = Date.now();
    const eventId = await emit(ctx.db, { livemode: true });
    await waitFor(() => r.received.some((x) => x.eventId === eventId), 2_000, 'the live event');
    expect(Date.now() - sent).toBeLessThan(2_000);
    expect(r.received.find((x) => x.eventId === eventId)?.verified).toBe(true);
    // Every test-mode attempt is still hanging: the live one did not wait for a slot of theirs.
    const [{ n }] = (await ctx.db.all<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM webhook_delivery_attempts a
        JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.livemode = $1`,
      [false],
    )) as [{ n: unknown }];
    expect(Number(n)).toBe(0);
    expect(h.open).toBe(32);
  });
});

describe('the HTTP transport', () => {
  it('settles every request by its deadline, with no agent queue, and frees every socket', async () => {
    const hanging = await startHangingReceiver();
    const transport = createHttpTransport();
    try {
      // More than the 64 sockets per origin the agent used to allow before queueing.
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          transport({
            target: {
              ok: true,
              url: new URL(hanging.url(`/q${i}`)),
              addresses: [{ address: '127.0.0.1', family: 4 }],
            },
            headers: { 'Content-Type': 'application/json' },
            body: '{}',
            timeoutMs: 1_500,
            livemode: false,
          }),
        ),
      );
      expect(results).toEqual(results.map(() => ({ statusCode: 200, error: 'timeout' })));
      // Every request reached the receiver at once: none waited in a queue.
      expect(hanging.maxOpen).toBe(100);
      await waitFor(() => hanging.open === 0, 2_000, 'every hung socket to close');
    } finally {
      transport.close();
      await hanging.close();
    }
  });
});
