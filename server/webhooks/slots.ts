/**
 * The delivery worker's slots (docs/design.md#webhooks, "No receiver can stall delivery"):
 * each mode has `concurrency` deliveries in flight at most, leased separately, and one endpoint
 * holds at most `endpointConcurrency` of them, so a hung receiver cannot take them all.
 * Deliveries leased past their endpoint's cap wait here, in lease order, for a slot of that
 * endpoint. Handing them back instead would make every lease of a busy endpoint's backlog
 * write its surplus twice (measured: 836 → 158 deliveries/s for one endpoint's backlog);
 * holding them costs nothing, and a held endpoint is at its cap, so no lease adds to it.
 *
 * Pure bookkeeping: no database, sockets or timers. The worker asks what to lease, says what
 * it leased, and reports each delivery's receiver done and its record written.
 */

/** What the slots need to know of a delivery. */
export interface SlotItem {
  webhookId: string;
  livemode: boolean;
}

export interface SlotOptions {
  /** Deliveries in flight at once per mode (live and test each have as many). */
  concurrency: number;
  /** Deliveries in flight at once to one endpoint. */
  endpointConcurrency: number;
  /** How long a lease that skipped capped endpoints and found nothing keeps them skipped (ms). */
  pollMs: number;
  /** How long a lease lasts (ms). */
  leaseMs: number;
  /** The deadline of one attempt (ms): a held delivery starts only if it can end in its lease. */
  timeoutMs: number;
  /** Epoch ms. */
  clock: () => number;
}

/** What to ask the database for: up to `limit` due deliveries of endpoints not excluded. */
export interface LeasePlan {
  limit: number;
  /** Endpoints at their cap. */
  excludeWebhookIds: string[];
  /** The lease's time (ms). */
  leasedAt: number;
}

/** What became of an endpoint's freed slot. */
export interface Handoff<T, F> {
  /** Held deliveries that could not finish within their lease (or the worker is stopping). */
  release: T[];
  /** The held delivery that took the slot (already counted in its mode and endpoint). */
  start?: { item: T; facts: F; fresh: boolean };
}

/** A held delivery that waited less than this starts on the facts read at its lease. */
export const FRESH_FACTS_MS = 1_000;
/** Margin past the attempt's deadline for recording it before its lease runs out. */
export const LEASE_MARGIN_MS = 5_000;

type Mode = 'live' | 'test';
const modeOf = (livemode: boolean): Mode => (livemode ? 'live' : 'test');

/** The slots of one worker; `F` is what the worker read about a leased batch. */
export class EndpointSlots<T extends SlotItem, F> {
  readonly #options: SlotOptions;
  readonly #inflight = { live: 0, test: 0 };
  readonly #perEndpoint = new Map<string, number>();
  readonly #held = new Map<string, Array<{ item: T; leasedAt: number; facts: F }>>();
  /** When a lease that skipped capped endpoints last found nothing, per mode. */
  readonly #emptySkipAt = { live: Number.NEGATIVE_INFINITY, test: Number.NEGATIVE_INFINITY };
  #stopping = false;

  constructor(options: SlotOptions) {
    this.#options = options;
  }

  /** Deliveries in flight of a mode (held ones not counted). */
  inflight(livemode: boolean): number {
    return this.#inflight[modeOf(livemode)];
  }

  /** Deliveries in flight to an endpoint. */
  endpointInflight(webhookId: string): number {
    return this.#perEndpoint.get(webhookId) ?? 0;
  }

  /** Nothing in flight and nothing held. */
  get idle(): boolean {
    return this.#inflight.live + this.#inflight.test === 0 && this.#held.size === 0;
  }

  /**
   * What this mode's free slots may lease now, or null: no free slot, or a lease that skipped
   * the same capped endpoints found nothing less than a poll interval ago. Such a lease reads
   * past their backlog, so re-reading it after every completed attempt made a 5,000-delivery
   * backlog O(n) per delivery (198 /s).
   */
  plan(livemode: boolean): LeasePlan | null {
    const mode = modeOf(livemode);
    const limit = this.#options.concurrency - this.#inflight[mode];
    if (limit <= 0) return null;
    const cap = this.#options.endpointConcurrency;
    const excludeWebhookIds = [...this.#perEndpoint].filter(([, n]) => n >= cap).map(([id]) => id);
    const leasedAt = this.#options.clock();
    if (excludeWebhookIds.length > 0 && leasedAt - this.#emptySkipAt[mode] < this.#options.pollMs) {
      return null;
    }
    return { limit, excludeWebhookIds, leasedAt };
  }

  /** The lease of `plan` found nothing due. */
  leasedNone(livemode: boolean, plan: LeasePlan): void {
    if (plan.excludeWebhookIds.length > 0)
      this.#emptySkipAt[modeOf(livemode)] = this.#options.clock();
  }

  /**
   * Takes an endpoint slot for each leased delivery whose endpoint has one free and holds the
   * rest; returns those to start now (counted in their mode).
   */
  admit(leased: readonly T[], leasedAt: number, facts: F): T[] {
    const start: T[] = [];
    for (const item of leased) {
      const n = this.endpointInflight(item.webhookId);
      if (n >= this.#options.endpointConcurrency) {
        const queue = this.#held.get(item.webhookId) ?? [];
        queue.push({ item, leasedAt, facts });
        this.#held.set(item.webhookId, queue);
      } else {
        this.#perEndpoint.set(item.webhookId, n + 1);
        this.#inflight[modeOf(item.livemode)] += 1;
        start.push(item);
      }
    }
    return start;
  }

  /** The receiver of one of the endpoint's deliveries is done: its slot goes to the next held. */
  endpointFreed(webhookId: string): Handoff<T, F> {
    const n = this.endpointInflight(webhookId) - 1;
    if (n <= 0) this.#perEndpoint.delete(webhookId);
    else this.#perEndpoint.set(webhookId, n);
    return this.#startHeld(webhookId);
  }

  /** A started delivery is recorded (or could not be): its mode's slot is free. */
  finished(item: T): void {
    this.#inflight[modeOf(item.livemode)] -= 1;
  }

  /** From now on held deliveries are handed back, never started. */
  stop(): void {
    this.#stopping = true;
  }

  /** Once stopping: the held deliveries of endpoints with nothing in flight, to hand back. */
  releaseIdle(): T[] {
    const release: T[] = [];
    for (const id of [...this.#held.keys()]) {
      if (this.endpointInflight(id) === 0) release.push(...this.#startHeld(id).release);
    }
    return release;
  }

  #startHeld(webhookId: string): Handoff<T, F> {
    const release: T[] = [];
    const queue = this.#held.get(webhookId) ?? [];
    const { clock, timeoutMs, leaseMs } = this.#options;
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      // Could not finish before its lease ends (or we are stopping): hand it back unattempted.
      if (this.#stopping || clock() + timeoutMs + LEASE_MARGIN_MS > next.leasedAt + leaseMs) {
        release.push(next.item);
        continue;
      }
      if (queue.length === 0) this.#held.delete(webhookId);
      this.#perEndpoint.set(webhookId, this.endpointInflight(webhookId) + 1);
      // Held deliveries were leased beside the mode's slots, so a mode may briefly run more
      // than `concurrency` (at most one batch more).
      this.#inflight[modeOf(next.item.livemode)] += 1;
      const fresh = clock() - next.leasedAt < FRESH_FACTS_MS;
      return { release, start: { item: next.item, facts: next.facts, fresh } };
    }
    this.#held.delete(webhookId);
    return { release };
  }
}
