/**
 * The delivery worker: leases due deliveries from the outbox, sends each signed event to its
 * endpoint, records every attempt, schedules retries with backoff, and disables an endpoint
 * whose retries ran out (spec: "Delivery").
 *
 * Several workers may share one PostgreSQL database: leasing uses `FOR UPDATE SKIP LOCKED`
 * and a lease time (`leaseMs`), so each due delivery goes to one worker, and a worker that
 * dies mid-delivery only delays it until its lease runs out. On SQLite one process delivers.
 *
 * No receiver can stall it: every attempt ends by its deadline (`attempt.ts`, `transport.ts`);
 * each mode has its own slots, so test-mode receivers never hold up a live delivery; and one
 * endpoint holds at most `endpointConcurrency` of its mode's slots, so a hung receiver cannot
 * take them all. The endpoint's bound key is checked before each send (`key-binding.ts`).
 */
import type { Db } from '../db/types.js';
import { type DeliveryFacts, readDeliveryFacts } from '../repos/delivery-facts.js';
import {
  type LeasedDelivery,
  leaseDueDeliveries,
  releaseLeases,
  releaseOrphanedLeases,
} from '../repos/webhook-deliveries.js';
import { deliver } from './deliver.js';
import { EndpointSlots } from './slots.js';
import { type DeliveryWorkerOptions, workerSetup } from './worker-options.js';

export type { DeliveryWorkerOptions };

export interface DeliveryWorker {
  readonly workerId: string;
  /** Look for due deliveries now instead of at the next poll. */
  wake(): void;
  /** Stops leasing, waits for in-flight deliveries to be recorded. */
  stop(): Promise<void>;
}

/**
 * Starts delivering. Returns at once; the work runs until `stop()`.
 * @example
 * const worker = startDeliveryWorker({ db, schedule: parseSchedule(process.env.WEBHOOK_SCHEDULE) });
 * process.once('SIGTERM', () => worker.stop());
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db } = options;
  const { ctx, slotOptions, owned, workerId, pollMs, leaseMs, onError } = workerSetup(options);
  const slots = new EndpointSlots<LeasedDelivery, DeliveryFacts>(slotOptions);

  let stopped = false;
  let wakeUp: (() => void) | null = null;
  const wake = () => {
    const fn = wakeUp;
    wakeUp = null;
    fn?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wakeUp = null;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const releasing = new Set<Promise<void>>();

  async function loop(): Promise<void> {
    // One process delivers on SQLite, so any lease still held belongs to a process that died.
    if (db.dialect === 'sqlite') await releaseOrphanedLeases(db);
    while (!stopped) {
      let more = false;
      // Live first, each mode from its own slots: test-mode receivers never delay live ones.
      for (const livemode of [true, false]) {
        if (stopped) break;
        try {
          if (await leaseAndStart(livemode)) more = true;
        } catch (err) {
          onError('webhook worker could not lease deliveries', err);
        }
      }
      // A full batch means more may be due: go again at once (after a slot frees up).
      if (!more && !stopped) await pause(pollMs);
    }
  }

  /** Leases what this mode's free slots allow and starts it; true when the batch was full. */
  async function leaseAndStart(livemode: boolean): Promise<boolean> {
    const plan = slots.plan(livemode);
    if (plan === null) return false;
    const { limit, excludeWebhookIds } = plan;
    const lease = (on: Db) =>
      leaseDueDeliveries(on, {
        workerId,
        nowMs: plan.leasedAt,
        leaseMs,
        limit,
        livemode,
        excludeWebhookIds,
      });
    // PostgreSQL: one statement, one round trip; its commit waits for the WAL flush,
    // which costs less than the BEGIN, SET LOCAL synchronous_commit and COMMIT round trips
    // it saves. SQLite: a lease lost to a crash only means the delivery is due again at
    // once, so leasing skips the fsync (synchronous=OFF).
    const leased =
      db.dialect === 'postgres' ? await lease(db) : await db.transaction(lease, { durable: false });
    if (leased.length === 0) {
      slots.leasedNone(livemode, plan);
      return false;
    }
    // Leased but unread facts: nothing started; the leases run out and others retry them.
    const facts = await readDeliveryFacts(db, leased);
    for (const delivery of slots.admit(leased, plan.leasedAt, facts)) run(delivery, facts);
    return leased.length === limit;
  }

  function run(delivery: LeasedDelivery, facts: DeliveryFacts): void {
    let freed = false;
    const attempted = () => {
      if (freed) return;
      freed = true;
      endpointDone(delivery.webhookId);
    };
    deliver(ctx, delivery, facts, attempted)
      .catch((err: unknown) => onError('webhook delivery could not be recorded', err))
      .finally(() => {
        attempted();
        slots.finished(delivery);
        wake();
      });
  }

  /** Frees a slot of the endpoint and gives it to the endpoint's next held delivery. */
  function endpointDone(webhookId: string): void {
    const { release, start } = slots.endpointFreed(webhookId);
    handBack(release);
    if (start?.fresh) run(start.item, start.facts);
    else if (start) {
      // Facts read long ago may be stale (the endpoint disabled meanwhile): read them again.
      readDeliveryFacts(db, [start.item]).then(
        (facts) => run(start.item, facts),
        (err: unknown) => {
          onError('webhook worker could not read delivery facts', err);
          slots.finished(start.item);
          endpointDone(webhookId);
        },
      );
    }
    wake();
  }

  /** Hands held deliveries back unattempted: due again at once for any worker. */
  function handBack(deliveries: readonly LeasedDelivery[]): void {
    if (deliveries.length === 0) return;
    const ids = deliveries.map((d) => d.id);
    const release = releaseLeases(db, workerId, ids)
      .catch((err: unknown) => onError('webhook worker could not release a lease', err))
      .finally(() => releasing.delete(release));
    releasing.add(release);
  }

  const running = loop().catch((err: unknown) => onError('webhook worker stopped', err));

  return {
    workerId,
    wake,
    async stop() {
      stopped = true;
      slots.stop();
      wake();
      await running;
      // Held deliveries are handed back as their endpoints' slots free up.
      while (!slots.idle) {
        handBack(slots.releaseIdle());
        await pause(10);
      }
      await Promise.all(releasing);
      await ctx.settler.flush();
      owned?.close();
    },
  };
}
