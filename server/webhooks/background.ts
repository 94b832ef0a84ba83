/**
 * Everything the service does besides answering requests: the webhook delivery worker and
 * the test-mode clearinghouse. `server/main.ts` starts it beside the HTTP server (unless
 * `WORKER=off`); `npm run worker` runs it alone.
 */
import { allowPrivateWebhookTargets } from '../config.js';
import type { Db } from '../db/types.js';
import { DELIVERY_TIMEOUT_MS } from './attempt.js';
import {
  type Clearinghouse,
  DEFAULT_CLEARINGHOUSE_DELAY_MS,
  startClearinghouse,
} from './clearinghouse.js';
import { parseSchedule, type RetrySchedule } from './schedule.js';
import { type DeliveryWorker, startDeliveryWorker } from './worker.js';

export interface BackgroundConfig {
  /** `WORKER=off` leaves delivery and simulation to another process. */
  enabled: boolean;
  schedule: RetrySchedule;
  clearinghouseDelayMs: number;
  /** Deliveries in flight per mode. */
  concurrency: number;
  /** Deliveries in flight to one endpoint. */
  endpointConcurrency: number;
  /** The deadline of one attempt (ms). */
  timeoutMs: number;
  /** Deliver to loopback and private addresses (see `allowPrivateWebhookTargets`). */
  allowPrivateTargets: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads `WORKER` (`off` disables), `WEBHOOK_SCHEDULE` (see `parseSchedule`),
 * `CLEARINGHOUSE_DELAY_MS` (default 2000), `WEBHOOK_CONCURRENCY` (per mode, default 32),
 * `WEBHOOK_ENDPOINT_CONCURRENCY` (default 8), `WEBHOOK_TIMEOUT_MS` (default 10000) and
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS` (read as the server reads it, `server/config.ts`).
 * Throws an `Error` naming the variable when a value cannot be used.
 */
export function loadBackgroundConfig(env: Env = process.env): BackgroundConfig {
  const worker = env.WORKER?.trim().toLowerCase() ?? '';
  if (!['', 'on', 'off', 'true', 'false', '1', '0'].includes(worker)) {
    throw new Error('WORKER must be on or off');
  }
  return {
    enabled: !['off', 'false', '0'].includes(worker),
    schedule: parseSchedule(env.WEBHOOK_SCHEDULE),
    clearinghouseDelayMs: whole(env, 'CLEARINGHOUSE_DELAY_MS', DEFAULT_CLEARINGHOUSE_DELAY_MS),
    concurrency: Math.max(1, whole(env, 'WEBHOOK_CONCURRENCY', 32)),
    endpointConcurrency: Math.max(1, whole(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 8)),
    timeoutMs: Math.max(1, whole(env, 'WEBHOOK_TIMEOUT_MS', DELIVERY_TIMEOUT_MS)),
    allowPrivateTargets: allowPrivateWebhookTargets(env),
  };
}

function whole(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number`);
  return Number(raw);
}

/** Where background failures are reported; `pino`'s logger fits. */
export interface BackgroundLog {
  error(obj: object, message: string): void;
}

export interface BackgroundWork {
  stop(): Promise<void>;
}

/**
 * Starts the delivery worker and the clearinghouse simulator on `db`.
 * @example
 * const background = startBackgroundWork({ db, config: loadBackgroundConfig() });
 * // on shutdown, before db.close():
 * await background.stop();
 */
export function startBackgroundWork(options: {
  db: Db;
  config?: BackgroundConfig;
  log?: BackgroundLog;
  clock?: () => number;
}): BackgroundWork {
  const config = options.config ?? loadBackgroundConfig();
  if (!config.enabled) return { stop: async () => {} };
  const log = options.log;
  // Only the error's kind and message: driver messages name no PHI, payloads are never logged.
  const onError = (message: string, err: unknown) =>
    log?.error(
      { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
      message,
    );
  const clock = options.clock ?? Date.now;
  const worker: DeliveryWorker = startDeliveryWorker({
    db: options.db,
    clock,
    schedule: config.schedule,
    concurrency: config.concurrency,
    endpointConcurrency: config.endpointConcurrency,
    timeoutMs: config.timeoutMs,
    allowPrivateTargets: config.allowPrivateTargets,
    onError,
  });
  const clearinghouse: Clearinghouse = startClearinghouse({
    db: options.db,
    clock,
    delayMs: config.clearinghouseDelayMs,
    onError,
  });
  return {
    async stop() {
      await Promise.all([worker.stop(), clearinghouse.stop()]);
    },
  };
}
