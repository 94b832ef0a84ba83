/**
 * Group commit for attempt outcomes: outcomes that arrive while a commit is running are
 * written together in the next one, so a thousand deliveries a second cost tens of commits
 * (each an fsync on SQLite with `synchronous=FULL`), not a thousand. On PostgreSQL a batch is
 * one statement, one round trip (see `settleDeliveries`).
 */
import type { Db } from '../db/types.js';
import { type Settlement, settleDeliveries } from '../repos/webhook-deliveries.js';

export type { Settlement };

interface Queued {
  settlement: Settlement;
  resolve: (settled: boolean) => void;
  reject: (err: unknown) => void;
}

/** Queues settlements and commits them in batches, one batch at a time. */
export class SettleQueue {
  readonly #db: Db;
  #queue: Queued[] = [];
  #running: Promise<void> | null = null;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Resolves with whether the delivery was still ours to settle (see `settleDelivery`). */
  settle(settlement: Settlement): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ settlement, resolve, reject });
      this.#running ??= this.#drain();
    });
  }

  /** Resolves when everything queued so far is committed (or failed). */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    // Let the other deliveries finishing in this turn of the event loop join the batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      try {
        const results = await settleDeliveries(
          this.#db,
          batch.map((item) => item.settlement),
        );
        for (const [i, item] of batch.entries()) item.resolve(results[i] ?? false);
      } catch (err) {
        // Nothing of the batch was written; each delivery's lease runs out and it is sent
        // again (at least once), so the caller only needs to hear about it.
        for (const item of batch) item.reject(err);
      }
    }
    this.#running = null;
  }
}
