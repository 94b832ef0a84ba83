import { expect, it } from 'vitest';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { getEvent, insertEvent, listEvents } from '../../server/repos/events.js';
import { getRecord, modifyRecord } from '../../server/repos/records.js';
import {
  deliveryAttempts,
  leaseDueDeliveries,
  settleDelivery,
} from '../../server/repos/webhook-deliveries.js';
import { getWebhookWithSecret, insertWebhook } from '../../server/repos/webhooks.js';
import { type StoredWebhook, WEBHOOK } from '../../server/resources/webhook.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const T0 = 1_800_000_000_000;

function webhook(events: string[], status = 'enabled') {
  return {
    id: newId('wh'),
    object: 'webhook',
    livemode: false,
    created: 1_800_000_000,
    url: 'https://example.org/hook',
    status,
    enabled_events: events,
  } as StoredWebhook;
}

function event(type = 'patient.created') {
  return {
    id: newId('evt'),
    object: 'event',
    livemode: false,
    created: 1_800_000_000,
    type,
    api_version: '2026-11-01',
    data: { object: { id: newId('pat'), object: 'patient' } },
    request: { id: newId('req'), idempotency_key: null },
  };
}

await describeEachDatabase('outbox: events, webhooks, deliveries', (dialect) => {
  const ctx = useTestDb(dialect);
  const addWebhook = (events: string[], status = 'enabled') =>
    ctx.db.transaction((tx) => insertWebhook(tx, webhook(events, status), 'whsec_test_secret'));

  it('keeps the webhook secret out of the object but recoverable for signing', async () => {
    const wh = await addWebhook(['*']);
    expect(await getRecord(WEBHOOK, ctx.db, wh.id, false)).toEqual(wh);
    expect(JSON.stringify(await getRecord(WEBHOOK, ctx.db, wh.id, false))).not.toContain('whsec_');
    expect((await getWebhookWithSecret(ctx.db, wh.id))?.secret).toBe('whsec_test_secret');
    await modifyRecord(WEBHOOK, ctx.db, wh.id, false, (stored) => ({
      ...stored,
      status: 'disabled' as const,
    }));
    expect((await getWebhookWithSecret(ctx.db, wh.id))?.secret).toBe('whsec_test_secret');
  });

  it('queues a delivery per subscribed, enabled endpoint in the writing transaction', async () => {
    const all = await addWebhook(['*']);
    await addWebhook(['claim.paid']);
    await addWebhook(['*'], 'disabled');
    const exact = await addWebhook(['patient.created']);
    const stored = await ctx.db.transaction((tx) => insertEvent(tx, event(), T0));
    expect(stored.pending_webhooks).toBe(2);
    const leased = await leaseDueDeliveries(ctx.db, {
      workerId: 'w1',
      nowMs: T0,
      leaseMs: 10_000,
      limit: 10,
    });
    expect(leased.map((d) => d.webhookId).sort()).toEqual([all.id, exact.id].sort());
    expect(JSON.parse(leased[0]!.eventJson).id).toBe(stored.id);
  });

  it('writes nothing when the transaction rolls back', async () => {
    await addWebhook(['*']);
    const e = event();
    await ctx.db
      .transaction(async (tx) => {
        await insertEvent(tx, e, T0);
        throw new Error('change failed');
      })
      .catch(() => {});
    expect(await getEvent(ctx.db, e.id, false)).toBeUndefined();
    expect(
      await leaseDueDeliveries(ctx.db, { workerId: 'w', nowMs: T0, leaseMs: 1, limit: 10 }),
    ).toEqual([]);
  });

  it('leases each due delivery to one worker, and settles with a live pending count', async () => {
    await addWebhook(['*']);
    await addWebhook(['*']);
    const e = await ctx.db.transaction((tx) => insertEvent(tx, event(), T0));
    const lease = (workerId: string, nowMs = T0) =>
      leaseDueDeliveries(ctx.db, { workerId, nowMs, leaseMs: 10_000, limit: 10 });
    const [a, b] = await Promise.all([lease('a'), lease('b')]);
    expect(a.length + b.length).toBe(2);
    const mine = [...a.map((d) => ['a', d] as const), ...b.map((d) => ['b', d] as const)];
    const [firstWorker, first] = mine[0]!;
    const [secondWorker, second] = mine[1]!;
    // Success, and a failure scheduled for retry.
    const attempt = {
      startedAt: T0,
      durationMs: 12,
      statusCode: 200,
      error: null,
      succeeded: true,
    };
    expect(
      await settleDelivery(ctx.db, {
        deliveryId: first.id,
        workerId: firstWorker,
        attempt,
        retryAt: null,
      }),
    ).toBe(true);
    // Only the lease holder may settle.
    expect(
      await settleDelivery(ctx.db, {
        deliveryId: second.id,
        workerId: 'intruder',
        attempt,
        retryAt: null,
      }),
    ).toBe(false);
    const failed = { ...attempt, statusCode: 500, succeeded: false };
    await settleDelivery(ctx.db, {
      deliveryId: second.id,
      workerId: secondWorker,
      attempt: failed,
      retryAt: T0 + 5000,
    });
    expect((await getEvent(ctx.db, e.id, false))?.pending_webhooks).toBe(1);
    expect(await lease('c', T0 + 4999)).toEqual([]);
    const retry = await lease('c', T0 + 5000);
    expect(retry.map((d) => d.id)).toEqual([second.id]);
    expect(retry[0]!.attempts).toBe(1);
    expect(await deliveryAttempts(ctx.db, second.id)).toEqual([
      { attempt: 1, status_code: 500, succeeded: 0, error: null },
    ]);
  });

  it('makes a delivery due again when its lease expires', async () => {
    await addWebhook(['*']);
    await ctx.db.transaction((tx) => insertEvent(tx, event(), T0));
    const lease = (workerId: string, nowMs: number) =>
      leaseDueDeliveries(ctx.db, { workerId, nowMs, leaseMs: 1000, limit: 10 });
    expect(await lease('a', T0)).toHaveLength(1);
    expect(await lease('b', T0 + 500)).toHaveLength(0);
    expect(await lease('b', T0 + 1001)).toHaveLength(1);
  });

  it('lists events newest first, by type', async () => {
    const insert = (db: Db, type: string) =>
      db.transaction((tx) => insertEvent(tx, event(type), T0));
    const a = await insert(ctx.db, 'patient.created');
    const b = await insert(ctx.db, 'claim.paid');
    expect((await listEvents(ctx.db, { livemode: false })).data.map((e) => e.id)).toEqual([
      b.id,
      a.id,
    ]);
    expect(
      (await listEvents(ctx.db, { livemode: false, type: 'claim.paid' })).data.map((e) => e.id),
    ).toEqual([b.id]);
  });
});
