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
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/types.js';
import {
  type DeliveryAttempt,
  type LeasedDelivery,
  leaseDueDeliveries,
  releaseLeases,
} from '../repos/webhook-deliveries.js';
import { versions } from '../versioning/index.js';
import { renderEventJson } from '../versioning/render-event.js';
import { attemptDelivery, DELIVERY_TIMEOUT_MS, deliveryBody } from './attempt.js';
import { settleFinalFailure } from './disable-endpoint.js';
import { type Bindings, bindingVerdict, loadBindings } from './key-binding.js';
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
  /** Deliveries in flight at once per mode (default 32; live and test each have as many). */
  concurrency?: number;
  /** Deliveries in flight at once to one endpoint (default 8). */
  endpointConcurrency?: number;
  /** How often to look for due deliveries when there were none (ms, default 25). */
  pollIntervalMs?: number;
  /** How long a leased delivery stays ours before others may take it (ms, default 60 s). */
  leaseMs?: number;
  /** The one deadline of an attempt: resolve, connect, headers and body (ms, default 10 s). */
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

/** Where each leased delivery's endpoint stands, its bound key, and its event's pending count. */
interface BatchFacts {
  enabled: Set<string>;
  /** Each enabled endpoint's `api_version`: its deliveries are rendered in it. */
  versions: Map<string, string>;
  pending: Map<string, number>;
  bindings: Bindings;
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
    bindings: await loadBindings(db, webhookIds),
  };
}

/** A held delivery that waited less than this starts on the facts read at its lease. */
const FRESH_FACTS_MS = 1_000;

/** The event type of a stored event's JSON text. */
function eventTypeOf(eventJson: string): string {
  return String((JSON.parse(eventJson) as { type?: unknown }).type ?? '');
}

/** An attempt that was never sent, with the reason as its error. */
function unsent(startedAt: number, error: string): DeliveryAttempt {
  return { startedAt, durationMs: 0, statusCode: null, error, succeeded: false };
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
  const endpointCap = Math.max(1, options.endpointConcurrency ?? 8);
  const pollMs = options.pollIntervalMs ?? 25;
  const leaseMs = options.leaseMs ?? 60_000;
  const random = options.random ?? Math.random;
  const onError = options.onError ?? (() => {});
  const workerId =
    options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  // The HTTP transport is ours to close only when neither a transport nor a fetch was given
  // (then `owned` is set, so the last `createHttpTransport()` below never runs).
  const owned = options.transport || options.fetch ? null : createHttpTransport();
  const transport: Transport =
    options.transport ??
    (options.fetch ? fetchTransport(options.fetch) : (owned ?? createHttpTransport()));
  const settler = new SettleQueue(db);
  const deps = {
    transport,
    clock,
    allowPrivate: options.allowPrivateTargets === true,
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    timeoutMsOrDefault: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
  };

  let stopped = false;
  /** In flight per mode (`live`/`test`) and per endpoint. */
  const inflight = { live: 0, test: 0 };
  const perEndpoint = new Map<string, number>();
  const totalInflight = () => inflight.live + inflight.test;
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
    const settlement = { deliveryId: delivery.id, workerId, attempt, retryAt: null };
    await settleFinalFailure(db, settlement, delivery.webhookId, clock);
  }

  /**
   * Sends (or refuses) one delivery and records it. `attempted` is called as soon as nothing
   * more goes to the receiver, before the record is written: the endpoint's slot is about
   * its receiver, and waiting for our own commit would cut one endpoint's throughput to
   * cap ÷ commit time.
   */
  async function deliver(
    delivery: LeasedDelivery,
    facts: BatchFacts,
    attempted: () => void,
  ): Promise<void> {
    // When a failed attempt is tried again (null: the schedule gives it up), read at the failure.
    const nextRetry = () =>
      nextRetryAt(schedule, delivery.livemode, delivery.attempts + 1, clock(), random);
    if (!facts.enabled.has(delivery.webhookId)) {
      attempted();
      // Disabled (by its owner) since the delivery was queued: give it up without sending.
      const attempt = unsent(clock(), 'endpoint_disabled');
      await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt: null });
      return;
    }
    if (facts.bindings.has(delivery.webhookId)) {
      const type = eventTypeOf(delivery.eventJson);
      const verdict = bindingVerdict(facts.bindings, delivery.webhookId, type, clock());
      if (verdict !== 'send') attempted();
      if (verdict === 'key_revoked') {
        // The key the subscription stood on is gone: nothing more goes out until a key that
        // may read the families re-enables the endpoint.
        await finalFailure(delivery, unsent(clock(), 'key_revoked'));
        return;
      }
      if (verdict === 'scope_missing') {
        const attempt = unsent(clock(), 'scope_missing');
        await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt: null });
        return;
      }
    }
    let rendered: string;
    try {
      rendered = renderEventJson(
        versions,
        delivery.eventJson,
        facts.versions.get(delivery.webhookId),
      );
    } catch (err) {
      // Stored data this build cannot render: an attempt that failed on our side, so the
      // schedule retries it (a fixed build may render it) and finally gives it up, instead of
      // the lease running out and the delivery coming back forever with no attempt recorded.
      attempted();
      onError('webhook event could not be rendered', err);
      const attempt = unsent(clock(), 'render_failed');
      // Given up without disabling the endpoint: its receiver did nothing wrong.
      await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt: nextRetry() });
      return;
    }
    const body = deliveryBody(rendered, facts.pending.get(delivery.eventId));
    const attempt = await attemptDelivery(delivery, body, deps);
    attempted();
    if (attempt.succeeded) {
      await settler.settle({ deliveryId: delivery.id, workerId, attempt, retryAt: null });
      return;
    }
    const retryAt = nextRetry();
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

  /**
   * Deliveries leased past their endpoint's cap wait here, in lease order, for a slot of that
   * endpoint. Handing them back instead would make every lease of a busy endpoint's backlog
   * write its surplus twice (measured: 836 → 158 deliveries/s for one endpoint's backlog);
   * holding them costs nothing, and a held endpoint is at its cap, so no lease adds to it.
   */
  const held = new Map<
    string,
    Array<{ delivery: LeasedDelivery; leasedAt: number; facts: BatchFacts }>
  >();
  const releasing = new Set<Promise<void>>();
  /** When a lease that skipped capped endpoints last found nothing, per mode. */
  const emptySkipAt = { live: Number.NEGATIVE_INFINITY, test: Number.NEGATIVE_INFINITY };

  /** Leases what this mode's free slots allow and starts it; true when the batch was full. */
  async function leaseAndStart(livemode: boolean): Promise<boolean> {
    const mode = livemode ? 'live' : 'test';
    const free = concurrency - inflight[mode];
    if (free <= 0) return false;
    const atCap = [...perEndpoint].filter(([, n]) => n >= endpointCap).map(([id]) => id);
    const leasedAt = clock();
    // A lease that skips endpoints at their cap reads past their backlog to find others; when
    // it found none, wait a poll interval before reading it again rather than after every
    // completed attempt (a 5,000-delivery backlog made that O(n) per delivery: 198 /s).
    if (atCap.length > 0 && leasedAt - emptySkipAt[mode] < pollMs) return false;
    const lease = (on: Db) =>
      leaseDueDeliveries(on, {
        workerId,
        nowMs: leasedAt,
        leaseMs,
        limit: free,
        livemode,
        excludeWebhookIds: atCap,
      });
    // PostgreSQL: one statement, one round trip; its commit waits for the WAL flush,
    // which costs less than the BEGIN, SET LOCAL synchronous_commit and COMMIT round trips
    // it saves. SQLite: a lease lost to a crash only means the delivery is due again at
    // once, so leasing skips the fsync (synchronous=OFF).
    const leased =
      db.dialect === 'postgres' ? await lease(db) : await db.transaction(lease, { durable: false });
    if (leased.length === 0) {
      if (atCap.length > 0) emptySkipAt[mode] = clock();
      return false;
    }
    // Leased but unread facts: nothing started; the leases run out and others retry them.
    const facts = await batchFacts(db, leased);
    const start: LeasedDelivery[] = [];
    for (const delivery of leased) {
      const n = perEndpoint.get(delivery.webhookId) ?? 0;
      if (n >= endpointCap) {
        const queue = held.get(delivery.webhookId) ?? [];
        queue.push({ delivery, leasedAt, facts });
        held.set(delivery.webhookId, queue);
      } else {
        perEndpoint.set(delivery.webhookId, n + 1);
        start.push(delivery);
      }
    }
    inflight[mode] += start.length;
    for (const delivery of start) run(delivery, facts);
    return leased.length === free;
  }

  function run(delivery: LeasedDelivery, facts: BatchFacts): void {
    let freed = false;
    const attempted = () => {
      if (freed) return;
      freed = true;
      endpointDone(delivery.webhookId);
    };
    deliver(delivery, facts, attempted)
      .catch((err: unknown) => onError('webhook delivery could not be recorded', err))
      .finally(() => {
        attempted();
        inflight[delivery.livemode ? 'live' : 'test'] -= 1;
        wake();
      });
  }

  /** Frees a slot of the endpoint and gives it to the endpoint's next held delivery. */
  function endpointDone(webhookId: string): void {
    const n = (perEndpoint.get(webhookId) ?? 1) - 1;
    if (n <= 0) perEndpoint.delete(webhookId);
    else perEndpoint.set(webhookId, n);
    startHeld(webhookId);
    wake();
  }

  /** Frees both slots of a delivery that never ran. */
  function done(delivery: LeasedDelivery): void {
    inflight[delivery.livemode ? 'live' : 'test'] -= 1;
    endpointDone(delivery.webhookId);
  }

  function startHeld(webhookId: string): void {
    const queue = held.get(webhookId);
    const next = queue?.shift();
    if (queue?.length === 0) held.delete(webhookId);
    if (next === undefined) return;
    const { delivery, leasedAt, facts } = next;
    if (stopped || clock() + deps.timeoutMsOrDefault + 5_000 > leasedAt + leaseMs) {
      // Could not finish before its lease ends (or we are stopping): hand it back unattempted.
      const release = releaseLeases(db, workerId, [delivery.id])
        .catch((err: unknown) => onError('webhook worker could not release a lease', err))
        .finally(() => releasing.delete(release));
      releasing.add(release);
      startHeld(webhookId);
      return;
    }
    perEndpoint.set(webhookId, (perEndpoint.get(webhookId) ?? 0) + 1);
    // Counted in its mode from now on; held deliveries were leased beside the mode's slots,
    // so a mode may briefly run more than `concurrency` (at most one batch more).
    inflight[delivery.livemode ? 'live' : 'test'] += 1;
    if (clock() - leasedAt < FRESH_FACTS_MS) {
      run(delivery, facts);
      return;
    }
    // Facts read long ago may be stale (the endpoint disabled meanwhile): read them again.
    batchFacts(db, [delivery]).then(
      (facts) => run(delivery, facts),
      (err: unknown) => {
        onError('webhook worker could not read delivery facts', err);
        done(delivery);
      },
    );
  }

  const running = loop().catch((err: unknown) => onError('webhook worker stopped', err));

  return {
    workerId,
    wake,
    async stop() {
      stopped = true;
      wake();
      await running;
      // Held deliveries are handed back as their endpoints' slots free up (stopped is set).
      while (totalInflight() > 0 || held.size > 0) {
        for (const id of [...held.keys()]) if ((perEndpoint.get(id) ?? 0) === 0) startHeld(id);
        await pause(10);
      }
      await Promise.all(releasing);
      await settler.flush();
      owned?.close();
    },
  };
}
