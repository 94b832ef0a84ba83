/**
 * The delivery worker's settings (`startDeliveryWorker`), with their defaults, turned into what
 * its parts take: the delivery context (`deliver.ts`) and the slots' options (`slots.ts`).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/types.js';
import { DELIVERY_TIMEOUT_MS } from './attempt.js';
import type { DeliverContext } from './deliver.js';
import { DEFAULT_SCHEDULE, type RetrySchedule } from './schedule.js';
import { SettleQueue } from './settle-queue.js';
import type { SlotOptions } from './slots.js';
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

/** What `startDeliveryWorker` runs on. */
export interface WorkerSetup {
  ctx: DeliverContext;
  slotOptions: SlotOptions;
  /** The HTTP transport the worker made and must close on stop (null: the caller's). */
  owned: { close(): void } | null;
  workerId: string;
  pollMs: number;
  leaseMs: number;
  onError: (message: string, err: unknown) => void;
}

/** Applies the defaults to `options`. */
export function workerSetup(options: DeliveryWorkerOptions): WorkerSetup {
  const { db } = options;
  const clock = options.clock ?? Date.now;
  const pollMs = options.pollIntervalMs ?? 25;
  const leaseMs = options.leaseMs ?? 60_000;
  const onError = options.onError ?? (() => {});
  const workerId =
    options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  // The HTTP transport is ours to close only when neither a transport nor a fetch was given
  // (then `owned` is set, so the last `createHttpTransport()` below never runs).
  const owned = options.transport || options.fetch ? null : createHttpTransport();
  const transport: Transport =
    options.transport ??
    (options.fetch ? fetchTransport(options.fetch) : (owned ?? createHttpTransport()));
  const ctx: DeliverContext = {
    db,
    workerId,
    settler: new SettleQueue(db),
    schedule: options.schedule ?? DEFAULT_SCHEDULE,
    clock,
    random: options.random ?? Math.random,
    onError,
    attempt: {
      transport,
      clock,
      allowPrivate: options.allowPrivateTargets === true,
      ...(options.resolver ? { resolver: options.resolver } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    },
  };
  const slotOptions: SlotOptions = {
    concurrency: Math.max(1, options.concurrency ?? 32),
    endpointConcurrency: Math.max(1, options.endpointConcurrency ?? 8),
    pollMs,
    leaseMs,
    timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    clock,
  };
  return { ctx, slotOptions, owned, workerId, pollMs, leaseMs, onError };
}
