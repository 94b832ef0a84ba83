/**
 * Settling deliveries in batches (one statement per batch on PostgreSQL, one transaction on
 * SQLite): each settlement still needs its own lease, attempts are numbered per delivery, and
 * the worker's retry-then-disable path works on both engines.
 */
import { expect, it } from 'vitest';
import type { Db } from '../../server/db/types.js';
import { getRecord } from '../../server/repos/records.js';
import {
  type DeliveryAttempt,
  deliveryAttempts,
  leaseDueDeliveries,
  settleDeliveries,
} from '../../server/repos/webhook-deliveries.js';
import { WEBHOOK } from '../../server/resources/webhook.js';
import { SettleQueue } from '../../server/webhooks/settle-queue.js';
import type { SendResult } from '../../server/webhooks/transport.js';
import { startDeliveryWorker } from '../../server/webhooks/worker.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf, emit } from './support/fixtures.js';
import { waitFor } from './support/receiver.js';

const T0 = Date.now();

const ok: DeliveryAttempt = {
  startedAt: T0,
  durationMs: 7,
  statusCode: 200,
  error: null,
  succeeded: true,
};
const failed: DeliveryAttempt = {
  startedAt: T0,
  durationMs: 3,
  statusCode: null,
  error: 'connection_refused "quoted" ünïcode',
  succeeded: false,
};

interface Row {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  locked_by: string | null;
  last_status_code: number | null;
  last_error: string | null;
}

async function row(db: Db, id: string): Promise<Row> {
  const found = await db.get<Row>(
    `SELECT id, status, attempts, next_attempt_at, locked_by, last_status_code, last_error
      FROM webhook_deliveries WHERE id = $1`,
    [id],
  );
  if (!found) throw new Error(`no delivery ${id}`);
  return { ...found, attempts: Number(found.attempts) };
}

/** Four endpoints, one event: four deliveries, all leased to `w`. */
async function fourLeased(db: Db): Promise<string[]> {
  for (let i = 0; i < 4; i++) await addWebhook(db, `https://example.org/${i}`);
  await emit(db);
  const leased = await leaseDueDeliveries(db, {
    workerId: 'w',
    nowMs: T0 + 60_000,
    leaseMs: 60_000,
    limit: 10,
  });
  expect(leased).toHaveLength(4);
  return leased.map((d) => d.id);
}

await describeEachDatabase('settling a batch of deliveries', (dialect) => {
  const ctx = useTestDb(dialect);

  it('settles the leases still held and refuses the stolen one, numbering attempts', async () => {
    const [retried, stolen, done, given] = await fourLeased(ctx.db);
    // `retried` already had one failed attempt and is leased again (its second attempt).
    expect(
      await settleDeliveries(ctx.db, [
        { deliveryId: retried!, workerId: 'w', attempt: failed, retryAt: T0 + 1000 },
      ]),
    ).toEqual([true]);
    const again = await leaseDueDeliveries(ctx.db, {
      workerId: 'w',
      nowMs: T0 + 60_000,
      leaseMs: 60_000,
      limit: 10,
    });
    expect(again.map((d) => [d.id, d.attempts])).toEqual([[retried, 1]]);
    // Another worker took `stolen` over (our lease expired and it leased the delivery).
    await ctx.db.run("UPDATE webhook_deliveries SET locked_by = 'thief' WHERE id = $1", [stolen!]);

    const results = await settleDeliveries(ctx.db, [
      { deliveryId: retried!, workerId: 'w', attempt: ok, retryAt: null },
      { deliveryId: stolen!, workerId: 'w', attempt: ok, retryAt: null },
      { deliveryId: done!, workerId: 'w', attempt: failed, retryAt: T0 + 5000 },
      { deliveryId: given!, workerId: 'w', attempt: failed, retryAt: null },
    ]);
    expect(results).toEqual([true, false, true, true]);

    expect(await row(ctx.db, retried!)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      next_attempt_at: null,
      locked_by: null,
      last_status_code: 200,
      last_error: null,
    });
    expect(await deliveryAttempts(ctx.db, retried!)).toEqual([
      { attempt: 1, status_code: null, succeeded: 0, error: failed.error },
      { attempt: 2, status_code: 200, succeeded: 1, error: null },
    ]);
    // The stolen delivery is untouched: still the thief's, no attempt recorded by us.
    expect(await row(ctx.db, stolen!)).toMatchObject({
      status: 'pending',
      attempts: 0,
      locked_by: 'thief',
    });
    expect(await deliveryAttempts(ctx.db, stolen!)).toEqual([]);
    expect(await row(ctx.db, done!)).toMatchObject({
      status: 'pending',
      attempts: 1,
      next_attempt_at: T0 + 5000,
      locked_by: null,
      last_error: failed.error,
    });
    expect(await deliveryAttempts(ctx.db, done!)).toEqual([
      { attempt: 1, status_code: null, succeeded: 0, error: failed.error },
    ]);
    expect(await row(ctx.db, given!)).toMatchObject({
      status: 'failed',
      attempts: 1,
      next_attempt_at: null,
    });
    // The thief may still settle its lease.
    expect(
      await settleDeliveries(ctx.db, [
        { deliveryId: stolen!, workerId: 'thief', attempt: ok, retryAt: null },
      ]),
    ).toEqual([true]);
    expect(await deliveryAttempts(ctx.db, stolen!)).toEqual([
      { attempt: 1, status_code: 200, succeeded: 1, error: null },
    ]);
  });

  it('resolves each queued settlement with its own outcome, in one batch', async () => {
    const [a, b, c] = await fourLeased(ctx.db);
    await ctx.db.run("UPDATE webhook_deliveries SET locked_by = 'thief' WHERE id = $1", [b!]);
    const queue = new SettleQueue(ctx.db);
    const settled = await Promise.all(
      [a, b, c].map((id) =>
        queue.settle({ deliveryId: id!, workerId: 'w', attempt: ok, retryAt: null }),
      ),
    );
    expect(settled).toEqual([true, false, true]);
    for (const id of [a, c]) {
      expect((await deliveryAttempts(ctx.db, id!)).map((x) => x.attempt)).toEqual([1]);
    }
    expect(await deliveryAttempts(ctx.db, b!)).toEqual([]);
  });

  it('settles a delivery named twice in one batch once', async () => {
    const [a] = await fourLeased(ctx.db);
    const results = await settleDeliveries(ctx.db, [
      { deliveryId: a!, workerId: 'w', attempt: ok, retryAt: null },
      { deliveryId: a!, workerId: 'w', attempt: ok, retryAt: null },
    ]);
    expect(results).toEqual([true, false]);
    expect(await deliveryAttempts(ctx.db, a!)).toHaveLength(1);
    expect((await row(ctx.db, a!)).attempts).toBe(1);
  });

  it('writes nothing of a batch whose statement fails', async () => {
    const [a, b] = await fourLeased(ctx.db);
    // A trigger refuses the attempt row of status 599, so the second settlement fails.
    const refuse =
      dialect === 'postgres'
        ? [
            `CREATE FUNCTION refuse_599() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN IF NEW.status_code = 599 THEN RAISE EXCEPTION 'refused'; END IF;
              RETURN NEW; END $$`,
            `CREATE TRIGGER refuse_599 BEFORE INSERT ON webhook_delivery_attempts
              FOR EACH ROW EXECUTE FUNCTION refuse_599()`,
          ]
        : [
            `CREATE TRIGGER refuse_599 BEFORE INSERT ON webhook_delivery_attempts
              WHEN NEW.status_code = 599 BEGIN SELECT RAISE(ABORT, 'refused'); END`,
          ];
    for (const sql of refuse) await ctx.db.run(sql);
    try {
      await expect(
        settleDeliveries(ctx.db, [
          { deliveryId: a!, workerId: 'w', attempt: ok, retryAt: null },
          { deliveryId: b!, workerId: 'w', attempt: { ...ok, statusCode: 599 }, retryAt: null },
        ]),
      ).rejects.toThrow();
    } finally {
      await ctx.db.run(
        dialect === 'postgres' ? 'DROP FUNCTION refuse_599() CASCADE' : 'DROP TRIGGER refuse_599',
      );
    }
    for (const id of [a!, b!]) {
      expect(await row(ctx.db, id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        locked_by: 'w',
      });
      expect(await deliveryAttempts(ctx.db, id)).toEqual([]);
    }
  });

  it('a worker retries a failing endpoint, then disables it', async () => {
    const hook = await addWebhook(ctx.db, 'https://example.org/fail');
    await emit(ctx.db);
    let sent = 0;
    const worker = startDeliveryWorker({
      db: ctx.db,
      allowPrivateTargets: true,
      transport: async (): Promise<SendResult> => {
        sent += 1;
        return { statusCode: 503, error: null };
      },
      resolver: async () => [{ address: '93.184.215.14', family: 4 }],
      schedule: { test: [20, 20], live: [20, 20], jitter: 0 },
      pollIntervalMs: 5,
    });
    try {
      await waitFor(
        async () => (await getRecord(WEBHOOK, ctx.db, hook.id, false))?.status === 'disabled',
        10_000,
        'the endpoint disabled',
      );
    } finally {
      await worker.stop();
    }
    const [delivery] = await deliveriesOf(ctx.db, hook.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3 });
    expect((await deliveryAttempts(ctx.db, delivery!.id)).map((x) => x.attempt)).toEqual([1, 2, 3]);
    expect(sent).toBe(3);
  });
});
