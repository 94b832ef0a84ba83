/**
 * What a request holds while its read-audit rows wait for their batch: a promise that settles
 * once every entry pushed under it is committed, or rejects as soon as one of their batches
 * fails. The writers hand one ticket to all the entries pushed between two batches, so a
 * batch of 500 reads costs one promise, not 500 (docs/design.md#audit-on-record).
 */
export class AuditTicket {
  readonly done: Promise<void>;
  #resolve!: () => void;
  #reject!: (err: unknown) => void;
  /** Entries under this ticket not yet committed. */
  #remaining = 0;
  #settled = false;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Entries whose pusher does not wait (refusals, audited for the record only) must not
    // turn a failed batch into an unhandled rejection; awaiting callers still see it.
    this.done.catch(() => {});
  }

  /** One more entry under this ticket. */
  add(): void {
    this.#remaining++;
  }

  /** `count` of its entries committed; resolves when none are left. */
  committed(count: number): void {
    this.#remaining -= count;
    if (this.#remaining <= 0 && !this.#settled) {
      this.#settled = true;
      this.#resolve();
    }
  }

  /** A batch holding some of its entries failed: whoever waits is told at once. */
  failed(err: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(err);
  }
}

/**
 * The entries of a failed batch as they are queued again: they are kept (the attempt to read
 * is worth a row), but the requests that waited for them are answered 503, so a row that said
 * `success` would record an answer never given. `denied` rows stay as they are: their
 * refusals never waited.
 */
export function asFailedAttempt<T extends { outcome: string }>(entry: T): T {
  return entry.outcome === 'denied' || entry.outcome === 'error'
    ? entry
    : { ...entry, outcome: 'error' };
}

/**
 * Settles the tickets of a batch: `tickets[i]` is the ticket of the batch's i-th entry
 * (undefined for entries nobody waits for). Tickets are contiguous runs, so this counts runs.
 */
export function settleTickets(
  tickets: readonly (AuditTicket | undefined)[],
  outcome: { ok: true } | { ok: false; err: unknown },
): void {
  let i = 0;
  while (i < tickets.length) {
    const ticket = tickets[i];
    let j = i + 1;
    while (j < tickets.length && tickets[j] === ticket) j++;
    if (ticket !== undefined) {
      if (outcome.ok) ticket.committed(j - i);
      else ticket.failed(outcome.err);
    }
    i = j;
  }
}
