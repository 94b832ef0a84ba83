/**
 * Runs retention rounds (`runPurgeRound`) every `intervalMs`, in the server and in
 * `npm run worker`. Each wait is the interval ±10 % at random, so processes started together
 * drift apart instead of all reaching for the lock at once. The timer never keeps a process
 * alive (`unref`), and `stop()` cancels the next round, ends the event purge of one under way
 * at its current batch and waits for it, so the database can be closed right after.
 */
import type { RetentionConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { type RoundResult, runPurgeRound } from './purge-round.js';

/** Where rounds are reported; pino's logger fits. Counts only: purged rows are never logged. */
export interface RetentionLog {
  error(obj: object, message: string): void;
  info?(obj: object, message: string): void;
}

export interface RetentionScheduler {
  /** Cancels the next round and resolves when the one under way (if any) has finished. */
  stop(): Promise<void>;
}

export interface RetentionOptions {
  db: Db;
  config: RetentionConfig;
  clock?: () => number;
  log?: RetentionLog;
  /** Called after every round (tests, metrics). */
  onRound?: (result: RoundResult) => void;
  /** A number in [0, 1); default `Math.random`, for the jitter. */
  random?: () => number;
}

/**
 * Starts the schedule; with `intervalMs` 0 nothing runs.
 * @example
 * const retention = startRetention({ db, config: loadRetentionConfig(), log: app.log });
 * // on shutdown, before db.close():
 * await retention.stop();
 */
export function startRetention(options: RetentionOptions): RetentionScheduler {
  const { db, config } = options;
  if (config.intervalMs === 0) return { stop: async () => {} };
  const clock = options.clock ?? Date.now;
  const random = options.random ?? Math.random;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  // A round purging millions of old events stops between batches rather than hold shutdown.
  const stopping = new AbortController();

  const round = async (): Promise<void> => {
    try {
      const result = await runPurgeRound(db, {
        nowMs: clock(),
        bucketIdleMs: config.bucketIdleMs,
        signal: stopping.signal,
      });
      if (result.ran) {
        const { ran: _, ...counts } = result;
        if (Object.values(counts).some((n) => n > 0)) {
          options.log?.info?.(counts, 'retention round deleted expired rows');
        }
      }
      options.onRound?.(result);
    } catch (err) {
      // Only the error's kind and message: driver messages carry no row values here.
      options.log?.error(
        { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
        'retention round failed; will retry at the next round',
      );
    }
  };

  const schedule = (): void => {
    if (stopped) return;
    const delay = Math.max(1, Math.round(config.intervalMs * (0.9 + 0.2 * random())));
    timer = setTimeout(() => {
      running = round().finally(() => {
        running = undefined;
        schedule();
      });
    }, delay);
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      stopping.abort();
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
