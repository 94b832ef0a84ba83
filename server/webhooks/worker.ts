/**
 * The delivery worker: leases due deliveries from the outbox, sends each signed event to its
 * endpoint, records every attempt, schedules retries with backoff, and disables an endpoint
 * whose retries ran out (spec: "Delivery").
 *
 * Several workers may share one PostgreSQL database: leasing uses `FOR UPDATE SKIP LOCKED`
 * and a lease time (`leaseMs`), so each due delivery goes to one worker, and a worker that
 * dies mid-delivery only delays it until its lease runs out. On SQLite one process delivers.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/types.js';
import {
  type DeliveryAttempt,
  type LeasedDelivery,
  leaseDueDeliveries,
  settleDelivery,
} from '../repos/webhook-deliveries.js';
import { versions } from '../versioning/index.js';
import { renderEventJson } from '../versioning/render-event.js';
import { attemptDelivery, deliveryBody } from './attempt.js';
import { disableEndpoint } from './disable-endpoint.js';
import { DEFAULT_SCHEDULE, nextRetryAt, type RetrySchedule } from './schedule.js';
import { SettleQueue } from './settle-queue.js';
import { createHttpTransport, fetchTransport, type Transport } from './transport.js';
import type { Resolver } from './url-guard.js';

export interface DeliveryWorkerOptions {
  db: Db;
  /** Epoch ms (default `Date.now`). */
  clock?: () => number;
  /** Retry delays (default: the spec's). */
  schedule?: RetrySchedule;
  /** Send through this `fetch` instead of the default address-pinning HTTP transport. */
  fetch?: typeof fetch;
  /** Or a transport of your own (tests). */
  transport?: Transport;
  /** Name resolution for the URL guard (tests inject one). */
  resolver?: Resolver;
  /**
   * Deliver to loopback and private addresses (the operator's opt-in,
   * `WEBHOOK_ALLOW_PRIVATE_TARGETS`; default false).
   */
  allowPrivateTargets?: boolean;
  /** Deliveries in flight at once (default 32). */
  concurrency?: number;
  /** How often to look for due deliveries when there were none (ms, default 25). */
  pollIntervalMs?: number;
  /** How long a leased delivery stays ours before others may take it (ms, default 60 s). */
  leaseMs?: number;
  /** Per-attempt timeout (ms, default 10 s). */
  timeoutMs?: number;
  /** Jitter source (default `Math.random`). */
  random?: () => number;
  /** Reports failures of the worker's own machinery (never response bodies or PHI). */
  onError?: (message: string, err: unknown) => void;
  workerId?: string;
}

export interface DeliveryWorker {
  readonly workerId: string;
  /** Look for due deliveries now instead of at the next poll. */
  wake(): void;
  /** Stops leasing, waits for in-flight deliveries to be recorded. */
  stop(): Promise<void>;
}

/** Where each leased delivery's endpoint stands, and its event's pending count. */
interface BatchFacts {
  enabled: Set<string>;
  /** Each enabled endpoint's `api_version`: its deliveries are rendered in it. */
  versions: Map<string, string>;
  pending: Map<string, number>;
}

async function batchFacts(db: Db, leased: readonly LeasedDelivery[]): Promise<BatchFacts> {
  const webhookIds = [...new Set(leased.map((d) => d.webhookId))];
  const eventIds = [...new Set(leased.map((d) => d.eventId))];
  const list = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');
  const hooks = await db.all<{ id: string; data: string }>(
    `SELECT id, data FROM webhooks WHERE status = 'enabled' AND id IN (${list(webhookIds.length)})`,
    webhookIds,
  );
  const counts = await db.all<{ event_id: string; n: unknown }>(
    `SELECT event_id, COUNT(*) AS n FROM webhook_deliveries
      WHERE status = 'pending' AND event_id IN (${list(eventIds.length)}) GROUP BY event_id`,
    eventIds,
  );
  return {
    enabled: new Set(hooks.map((h) => h.id)),
    versions: new Map(hooks.map((h) => [h.id, String(JSON.parse(h.data).api_version)])),
    pending: new Map(counts.map((c) => [c.event_id, Number(c.n)])),
  };
}

/**
 * Starts delivering. Returns at once; the work runs until `stop()`.
 * @example
 * const worker = startDeliveryWorker({ db, schedule: parseSchedule(process.env.WEBHOOK_SCHEDULE) });
 * process.once('SIGTERM', () => worker.stop());
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db } = options;
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? DEFAULT_SCHEDULE;
  const concurrency = Math.max(1, options.concurrency ?? 32);
  const pollMs = options.pollIntervalMs ?? 25;
  const leaseMs = options.leaseMs ?? 60_000;
  const random = options.random ?? Math.random;
  const onError = options.onError ?? (() => {});
  const workerId =
    options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const owned = options.transport || options.fetch ? null : createHttpTransport();
  const transport: Transport =
    options.transport ?? (options.fetch ? fetchTransport(options.fetch) : owned!);
  const settler = new SettleQueue(db);
  const deps = {
    transport,
    clock,
    allowPrivate: options.allowPrivateTargets === true,
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  };

  let stopped = false;
  let inflight = 0;
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

  async function finalFailure(delivery: LeasedDelivery, attempt: DeliveryAttempt): Promise<void> {
    await db.transaction(async (tx) => {
      const settled = await settleDelivery(tx, {
        deliveryId: delivery.id,
        workerId,
        attempt,
        retryAt: null,
      });
      if (settled) await disableEndpoint(tx, delivery.webhookId, clock());
    });
  }

  async function deliver(delivery: LeasedDelivery, facts: BatchFacts): Promise<void> {
    if (!facts.enabled.has(delivery.webhookId)) {
      // Disabled (by its owner) since the delivery was queued: give it up without sending.
      const attempt = {
        startedAt: clock(),
        durationMs: 0,
        statusCode: null,
        error: 'endpoint_disabled',
        succeeded: false,
      };
      await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt: null });
      return;
    }
    const rendered = renderEventJson(
      versions,
      delivery.eventJson,
      facts.versions.get(delivery.webhookId),
    );
    const body = deliveryBody(rendered, facts.pending.get(delivery.eventId));
    const attempt = await attemptDelivery(delivery, body, deps);
    if (attempt.succeeded) {
      await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt: null });
      return;
    }
    const retryAt = nextRetryAt(
      schedule,
      delivery.livemode,
      delivery.attempts + 1,
      clock(),
      random,
    );
    if (retryAt === null) await finalFailure(delivery, attempt);
    else await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt });
  }

  async function loop(): Promise<void> {
    if (db.dialect === 'sqlite') {
      // One process delivers on SQLite, so any lease still held belongs to a process that
      // died; free them now rather than after they expire.
      await db.run(
        `UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL
          WHERE status = 'pending' AND locked_by IS NOT NULL`,
      );
    }
    while (!stopped) {
      const free = concurrency - inflight;
      if (free <= 0) {
        await pause(pollMs);
        continue;
      }
      let leased: LeasedDelivery[] = [];
      try {
        const lease = (on: Db) =>
          leaseDueDeliveries(on, { workerId, nowMs: clock(), leaseMs, limit: free });
        // PostgreSQL: one statement, one round trip; its commit waits for the WAL flush,
        // which costs less than the BEGIN, SET LOCAL synchronous_commit and COMMIT round trips
        // it saves. SQLite: a lease lost to a crash only means the delivery is due again at
        // once, so leasing skips the fsync (synchronous=OFF).
        leased =
          db.dialect === 'postgres'
            ? await lease(db)
            : await db.transaction(lease, { durable: false });
        if (leased.length > 0) {
          const facts = await batchFacts(db, leased);
          for (const delivery of leased) {
            inflight += 1;
            deliver(delivery, facts)
              .catch((err: unknown) => onError('webhook delivery could not be recorded', err))
              .finally(() => {
                inflight -= 1;
                wake();
              });
          }
        }
      } catch (err) {
        onError('webhook worker could not lease deliveries', err);
      }
      // A full batch means more may be due: go again at once (after a slot frees up).
      if (leased.length < free && !stopped) await pause(pollMs);
    }
  }

  const running = loop().catch((err: unknown) => onError('webhook worker stopped', err));

  return {
    workerId,
    wake,
    async stop() {
      stopped = true;
      wake();
      await running;
      while (inflight > 0) await pause(10);
      await settler.flush();
      owned?.close();
    },
  };
}
