import { isUniqueViolation } from '../db/errors.js';
import type { Db } from '../db/types.js';
import { BatchTimer } from './batch-timer.js';
import { type ChainHead, ChainHeadMoved } from './chain.js';
import { type AuditEntry, checkAuditEntry } from './entry.js';
import {
  type ChainedBatch,
  chainBatch,
  insertAuditBatchLocked,
  insertChainedBatch,
} from './record.js';
import { AuditTicket, asFailedAttempt, settleTickets } from './ticket.js';

/**
 * After a failed batch, how long the next attempt waits: a database that is down refuses a
 * connection at once (node-postgres to a closed port here: 0.19 ms median of 20), and without
 * a pause the writer retried (and logged) every 5 ms, or at once whenever a full batch was
 * queued, for the length of the outage.
 */
const RETRY_AFTER_FAILURE_MS = 100;

/**
 * After a batch chained from the head this writer expected found it moved (another process,
 * or a write's own audit row, appended meanwhile), how many batches lock and read the head
 * before the next tries without: where several writers keep moving it, a miss costs one
 * round trip per this many batches rather than one per batch.
 */
const LOCKED_AFTER_MISS = 8;

export interface AuditWriterOptions {
  /**
   * How long an entry may wait before its batch commits. Default 5 ms. On SQLite, whose
   * commits stop the event loop, stretched to four times the last commit's duration when the
   * disk is slow, so audit fsyncs never take more than about a fifth of the process's time.
   * A batch waits for the one before it to commit (see `batchesInFlight`). While a `record` caller waits, a batch goes as soon as one may (group commit: no
   * interval while reads wait; batches grow with the load).
   */
  intervalMs?: number;
  /** Entries per transaction; a full batch commits at once. Default 500. */
  maxBatch?: number;
  /**
   * PostgreSQL: batches committing at once. Default 1. With 2, the next batch's transaction
   * takes its connection and queues on the chain head's lock (server/audit/chain.ts) while the
   * one before it commits, so it starts the moment that commit lands; the lock keeps the
   * chain's order the order of commits. Measured under bench:server on the shared 2-core
   * machine (BENCHMARKS.md, issue 43), 2 made batches smaller and cost more CPU per read than
   * the round trip it saved, so it is off. SQLite has one writer: always 1.
   */
  batchesInFlight?: number;
  /** Entries held at most; beyond it `push` refuses. Default 20,000. */
  maxQueue?: number;
  /** Told when a batch fails to commit (the batch is retried 100 ms later). */
  onError?: (err: unknown) => void;
}

/**
 * Group-commits audit entries of reads: `push` (or `record`, whose caller waits for the
 * commit) queues in memory, and every few ms one transaction stores everything queued, so a
 * read costs no fsync of its own, only the wait for its batch. `flush()` waits until
 * everything pushed so far is committed; `close()` flushes and stops accepting.
 */
export class AuditWriter {
  readonly #db: Db;
  readonly #intervalMs: number;
  readonly #maxBatch: number;
  readonly #maxQueue: number;
  readonly #inFlight: number;
  readonly #onError: (err: unknown) => void;
  #queue: AuditEntry[] = [];
  /** The ticket of each queued entry (same index), undefined where nobody waits. */
  #tickets: (AuditTicket | undefined)[] = [];
  /** The ticket entries pushed now join; a new one starts with each batch taken. */
  #open: AuditTicket | undefined;
  readonly #timer = new BatchTimer(() => void this.#tick());
  /** The batches being committed. */
  readonly #running = new Set<Promise<void>>();
  /** Some queued entry has a `record` caller waiting for its commit. */
  #urgent = false;
  /** Settles once the last batch taken holds the chain head's lock (or failed to take it). */
  #lastLocked: Promise<void> = Promise.resolve();
  #closed = false;
  #lastCommitMs = 0;
  /** The last batch failed: the next waits `RETRY_AFTER_FAILURE_MS`, full or not. */
  #failing = false;
  /**
   * Where the chain's head will be once the last batch taken commits, when this writer knows
   * it: the next batch is then chained from it without reading it (`insertChainedBatch`).
   * Undefined at first, after a failure and after a miss: the next batch locks and reads it.
   */
  #head: ChainHead | undefined;
  /** Batches taken so far; the last one taken alone may set `#head` when it commits. */
  #taken = 0;
  /** Batches still to lock and read the head after a miss (`LOCKED_AFTER_MISS`). */
  #lockedAhead = 0;
  /** Entries refused because the queue was full. */
  dropped = 0;

  constructor(db: Db, options: AuditWriterOptions = {}) {
    this.#db = db;
    this.#intervalMs = options.intervalMs ?? 5;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#maxQueue = options.maxQueue ?? 20_000;
    this.#inFlight = db.dialect === 'postgres' ? Math.max(1, options.batchesInFlight ?? 1) : 1;
    this.#onError = options.onError ?? (() => {});
  }

  /** Entries waiting to be committed. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Queues an entry (checked now, so a bad one throws here, at its source). Returns false
   * when it was refused: the writer is closed or the queue is full (the database is not
   * keeping up); the caller decides whether that request may proceed.
   */
  push(entry: AuditEntry): boolean {
    return this.#enqueue(entry) !== undefined;
  }

  /**
   * Like `push`, for a read whose answer must wait until its row is on record: the promise
   * resolves once the entry's batch committed and rejects if that batch failed (the entry is
   * then kept, queued again as an `error` attempt). Undefined when refused, as `push`'s false.
   */
  record(entry: AuditEntry): Promise<void> | undefined {
    const ticket = this.#enqueue(entry, true);
    return ticket?.done;
  }

  #enqueue(entry: AuditEntry, waited = false): AuditTicket | undefined {
    checkAuditEntry(entry);
    if (this.#closed || this.#queue.length >= this.#maxQueue) {
      this.dropped++;
      return undefined;
    }
    this.#queue.push(entry.at === undefined ? { ...entry, at: Date.now() } : entry);
    this.#open ??= new AuditTicket();
    const ticket = this.#open;
    ticket.add();
    this.#tickets.push(ticket);
    if (waited) this.#urgent = true;
    if (this.#queue.length >= this.#maxBatch && !this.#failing) this.#schedule(0);
    else this.#schedule(this.#delayMs());
    return ticket;
  }

  /** Resolves once every entry pushed before the call is committed (or failed to). */
  async flush(): Promise<void> {
    this.#clearTimer();
    while (this.#running.size > 0) await Promise.all(this.#running);
    while (this.#queue.length > 0) {
      const before = this.#queue.length;
      await this.#drainOnce();
      // Batches a timer started meanwhile too, so the check below sees what is left.
      while (this.#running.size > 0) await Promise.all(this.#running);
      // A failing database would otherwise spin here; the entries stay queued.
      if (this.#queue.length >= before) break;
    }
  }

  /** Flushes and refuses further entries. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #schedule(delayMs: number): void {
    this.#timer.after(delayMs);
  }

  #clearTimer(): void {
    this.#timer.clear();
  }

  async #tick(): Promise<void> {
    // A full house: the batch that ends first schedules the next (`#drainOnce`).
    if (this.#running.size >= this.#maxInFlight()) return;
    void this.#drainOnce();
    if (this.#queue.length > 0) this.#schedule(this.#delayMs());
  }

  #maxInFlight(): number {
    return this.#inFlight;
  }

  #delayMs(): number {
    if (this.#failing) return Math.max(this.#intervalMs, RETRY_AFTER_FAILURE_MS);
    // A read waits for this batch: it goes as soon as a commit slot is free, at the end of the
    // event loop's turn (so the reads answered in this turn join it; `BatchTimer`). Pacing here
    // was most of a read's added latency (BENCHMARKS.md, issue 43).
    if (this.#urgent) return 0;
    // PostgreSQL commits beside the event loop: stretching its interval only made batches
    // larger, and each batch's JSON text (server/audit/record.ts) a large object to V8, freed
    // by full collections alone. Under bench:server (b′) the process peaked at 193-202 MB
    // with the stretch and 174-177 MB without (bench/results/server-session12.md).
    if (this.#db.dialect === 'postgres') return this.#intervalMs;
    return Math.max(this.#intervalMs, 4 * this.#lastCommitMs);
  }

  /** Commits one batch in one transaction; on failure puts it back at the front. */
  async #drainOnce(): Promise<void> {
    if (this.#running.size >= this.#maxInFlight()) return Promise.race(this.#running);
    const batch = this.#queue.splice(0, this.#maxBatch);
    if (batch.length === 0) return;
    const tickets = this.#tickets.splice(0, batch.length);
    this.#open = undefined;
    if (this.#queue.length === 0) this.#urgent = false;
    const started = performance.now();
    const after = this.#lastLocked;
    let locked!: () => void;
    this.#lastLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const number = ++this.#taken;
    let chained: ChainedBatch | undefined;
    if (this.#head !== undefined && this.#lockedAhead === 0) {
      chained = chainBatch(batch, this.#head);
    } else if (this.#lockedAhead > 0) {
      this.#lockedAhead--;
    }
    // A batch after this one chains from where this one leaves the head, or locks it.
    this.#head = chained?.head;
    const running: Promise<void> = this.#store(batch, chained, { after, locked })
      .then((head) => {
        this.#failing = false;
        if (number === this.#taken) this.#head = head;
        settleTickets(tickets, { ok: true });
      })
      .catch((err: unknown) => {
        this.#failing = true;
        this.#head = undefined;
        settleTickets(tickets, { ok: false, err });
        const again = [...batch.map(asFailedAttempt), ...this.#queue];
        const ticketsAgain = [...batch.map(() => undefined), ...this.#tickets];
        // Beyond the queue's bound the newest entries go; their tickets are told.
        settleTickets(ticketsAgain.slice(this.#maxQueue), { ok: false, err });
        this.#queue = again.slice(0, this.#maxQueue);
        this.#tickets = ticketsAgain.slice(0, this.#maxQueue);
        this.#onError(err);
      })
      .finally(() => {
        // A transaction that failed before it reached the head must not hold up the next.
        locked();
        this.#lastCommitMs = performance.now() - started;
        this.#running.delete(running);
        // Entries that came while every slot was busy go now, or at their pace.
        if (this.#queue.length > 0 && !this.#closed) this.#schedule(this.#delayMs());
      });
    this.#running.add(running);
    return running;
  }

  /**
   * Stores one batch, chained already when this writer knew the head (one statement on
   * PostgreSQL), else locking and reading the head first; a chained batch that finds the head
   * moved stored nothing and goes again the second way. Resolves with the head it left.
   */
  async #store(
    batch: readonly AuditEntry[],
    chained: ChainedBatch | undefined,
    turn: { after: Promise<void>; locked: () => void },
  ): Promise<ChainHead> {
    if (chained !== undefined) {
      // No lock to wait for in turn: the head's own row lock orders it (MOVE_CHAIN_HEAD_FROM).
      turn.locked();
      try {
        await this.#db.transaction((tx) => insertChainedBatch(tx, chained));
        return chained.head;
      } catch (err) {
        // The head moved: the `UPDATE` changed no row, or a row's place was taken already.
        if (!(err instanceof ChainHeadMoved) && !isUniqueViolation(err)) throw err;
        this.#lockedAhead = LOCKED_AFTER_MISS;
        return (await this.#db.transaction((tx) => insertAuditBatchLocked(tx, batch))).head;
      }
    }
    return (await this.#db.transaction((tx) => insertAuditBatchLocked(tx, batch, turn))).head;
  }
}
