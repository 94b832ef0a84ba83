/**
 * Stored events the current build cannot render as they are: an appointment an earlier release
 * stored with milliseconds-style times is delivered (its times clamped, valid in each version),
 * and an event whose stored text cannot be rendered at all is recorded as a failed attempt
 * (`render_failed`), retried on the schedule and given up, never leased again forever.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db/types.js';
import { type EventObject, emitEvent } from '../../server/domain/events.js';
import { newId } from '../../server/ids.js';
import { getRecord } from '../../server/repos/records.js';
import { deliveryAttempts } from '../../server/repos/webhook-deliveries.js';
import { WEBHOOK } from '../../server/resources/webhook.js';
import type { RetrySchedule } from '../../server/webhooks/schedule.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import { availableDialects, useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf, emit } from './support/fixtures.js';
import { type Receiver, startReceiver, waitFor } from './support/receiver.js';

const FAST: RetrySchedule = { test: [20, 40], live: [20, 40], jitter: 0 };

async function emitAppointment(db: Db, start: number, end: number): Promise<string> {
  const object = {
    id: newId('appt'),
    object: 'appointment',
    livemode: false,
    patient: newId('pat'),
    practitioner: 'Dr Old',
    location: null,
    status: 'booked',
    start,
    end,
    appointment_type: null,
    reason: null,
    cancellation_reason: null,
    created: 1_795_747_516,
    updated: 1_795_747_516,
    metadata: {},
  };
  const event = await db.transaction((tx) =>
    emitEvent(
      tx,
      { livemode: false, requestId: null, idempotencyKey: null, now: Date.now },
      {
        type: 'appointment.updated',
        object: object as unknown as EventObject,
        previousAttributes: { start: end, end: end + 1 },
      },
    ),
  );
  return event.id;
}

for (const { dialect, available } of await availableDialects()) {
  describe.skipIf(!available)(`stored events that do not render as they are [${dialect}]`, () => {
    const ctx = useTestDb(dialect, { fresh: 'each' });
    let receiver: Receiver;
    let worker: DeliveryWorker | undefined;
    const errors: string[] = [];
    const start = () => {
      worker = startDeliveryWorker({
        db: ctx.db,
        allowPrivateTargets: true,
        schedule: FAST,
        pollIntervalMs: 10,
        onError: (message) => errors.push(message),
      });
    };

    beforeEach(async () => {
      errors.length = 0;
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await worker?.stop();
      worker = undefined;
      await receiver.close();
    });

    it('delivers milliseconds-style appointment times clamped, in each version', async () => {
      // The fixture's endpoints are 2026-11-01's; the second is moved to the latest.
      await addWebhook(ctx.db, receiver.url('/old'));
      const latest = await addWebhook(ctx.db, receiver.url('/latest'));
      await ctx.db.run('UPDATE webhooks SET data = $1 WHERE id = $2', [
        JSON.stringify({
          ...(await getRecord(WEBHOOK, ctx.db, latest.id, false)),
          api_version: '2026-12-01',
        }),
        latest.id,
      ]);
      await emitAppointment(ctx.db, 1_795_747_516_000, 9_000_000_000_000);
      start();
      await waitFor(() => receiver.received.length >= 2, 10_000, 'both deliveries');
      const byPath = new Map(receiver.received.map((r) => [r.path, JSON.parse(r.rawBody)]));
      const oldData = byPath.get('/old').data;
      expect([oldData.object.start, oldData.object.end]).toEqual([253402300799, 253402300799]);
      expect(oldData.previous_attributes).toEqual({ start: 253402300799, end: 253402300799 });
      const newData = byPath.get('/latest').data;
      expect([newData.object.start, newData.object.end]).toEqual([
        '9999-12-31T23:59:59Z',
        '9999-12-31T23:59:59Z',
      ]);
      expect(errors).toEqual([]);
    });

    it('records an event it cannot render as failed attempts, retried and given up', async () => {
      const hook = await addWebhook(ctx.db, receiver.url('/a'));
      const eventId = await emit(ctx.db);
      // Text no build of ours wrote: an event without `data`.
      await ctx.db.run('UPDATE events SET data = $1 WHERE id = $2', [
        JSON.stringify({ id: eventId, object: 'event', type: 'patient.created' }),
        eventId,
      ]);
      start();
      await waitFor(
        async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'failed',
        10_000,
        'the delivery given up',
      );
      const [delivery] = await deliveriesOf(ctx.db, hook.id);
      // The first try and the schedule's two retries, each recorded with its reason.
      expect(delivery?.attempts).toBe(3);
      const attempts = await deliveryAttempts(ctx.db, delivery!.id);
      expect(attempts.map((a) => [a.error, a.status_code])).toEqual([
        ['render_failed', null],
        ['render_failed', null],
        ['render_failed', null],
      ]);
      expect(receiver.received).toEqual([]);
      // The receiver did nothing wrong: its endpoint stays enabled.
      expect((await getRecord(WEBHOOK, ctx.db, hook.id, false))?.status).toBe('enabled');
      expect(errors).toContain('webhook event could not be rendered');
      expect(errors).not.toContain('webhook delivery could not be recorded');
    });
  });
}
