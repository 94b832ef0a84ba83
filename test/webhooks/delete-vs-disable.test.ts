/**
 * Deleting an endpoint while the worker gives up its last delivery and disables it: the
 * DELETE takes the endpoint's row, then its deliveries; the worker used to take the delivery,
 * then the row, and PostgreSQL aborted one side with a deadlock (the DELETE answered 500).
 * The interleaving is forced: a third transaction holds the endpoint's row while the DELETE
 * and then the worker queue behind it, then lets go.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { connect } from '../../server/db/open.js';
import { leaseDueDeliveries } from '../../server/repos/webhook-deliveries.js';
import { deleteWebhook } from '../../server/repos/webhooks.js';
import { settleFinalFailure } from '../../server/webhooks/disable-endpoint.js';
import { buildTestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';
import { addWebhook, emit } from './support/fixtures.js';

await describeEachDatabase(
  'deleting an endpoint while the worker or an event uses it',
  (dialect) => {
    const ctx = useTestDb(dialect, { fresh: 'each' });

    it('answers the DELETE 200, the worker finishes, and the endpoint stays deleted', async () => {
      const t = await buildTestApp({ db: ctx.db });
      const blocker = dialect === 'postgres' ? connect(ctx.url) : null;
      try {
        const key = await makeKey(ctx.db);
        const hook = await addWebhook(ctx.db, 'https://example.org/hook');
        await emit(ctx.db);
        const [delivery] = await leaseDueDeliveries(ctx.db, {
          workerId: 'w',
          nowMs: Date.now() + 60_000,
          leaseMs: 60_000,
          limit: 10,
        });
        expect(delivery?.webhookId).toBe(hook.id);

        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let locked = () => {};
        const isLocked = new Promise<void>((resolve) => {
          locked = resolve;
        });
        const holding = blocker?.transaction(async (tx) => {
          await tx.get('SELECT id FROM webhooks WHERE id = $1 FOR NO KEY UPDATE', [hook.id]);
          locked();
          await held;
        });
        if (blocker) await isLocked;

        const deleted = t.request({
          method: 'DELETE',
          url: `/v1/webhooks/${hook.id}`,
          key: key.secret,
        });
        // Let the DELETE queue on the row first, then the worker behind it.
        if (blocker) await sleep(300);
        const settled = settleFinalFailure(
          ctx.db,
          {
            deliveryId: delivery!.id,
            workerId: 'w',
            retryAt: null,
            attempt: {
              startedAt: Date.now(),
              durationMs: 1,
              statusCode: 500,
              error: null,
              succeeded: false,
            },
          },
          hook.id,
          Date.now,
        );
        if (blocker) await sleep(300);
        release();
        await holding;

        const [res, worker] = await Promise.allSettled([deleted, settled]);
        expect(worker.status).toBe('fulfilled');
        expect(res.status === 'fulfilled' ? res.value.status : res.reason).toBe(200);
        // The acknowledged delete holds: no endpoint, no delivery left behind.
        const gone = await t.request({
          method: 'GET',
          url: `/v1/webhooks/${hook.id}`,
          key: key.secret,
        });
        expect(gone.status).toBe(404);
        expect(
          await ctx.db.all('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [hook.id]),
        ).toEqual([]);
      } finally {
        await blocker?.close();
        await t.close();
      }
    });

    it('commits an event raised while its endpoint is being deleted, without a delivery for it', async () => {
      const hook = await addWebhook(ctx.db, 'https://example.org/hook');
      const other = dialect === 'postgres' ? connect(ctx.url) : null;
      try {
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        // The delete runs first and stays uncommitted while the event is written (PostgreSQL).
        const deleting = (other ?? ctx.db).transaction(async (tx) => {
          expect(await deleteWebhook(tx, hook.id, false)).toBe(true);
          if (other) await held;
        });
        if (other) await sleep(200);
        const emitting = emit(ctx.db);
        if (other) await sleep(300);
        release();
        await deleting;
        const eventId = await emitting;
        expect(await ctx.db.get('SELECT id FROM events WHERE id = $1', [eventId])).toBeDefined();
        expect(
          await ctx.db.all('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [hook.id]),
        ).toEqual([]);
      } finally {
        await other?.close();
      }
    });
  },
);
