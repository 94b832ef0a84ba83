import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { newId } from '../ids.js';
import { BatchTimer } from './batch-timer.js';
import { CHAINED_FIELDS } from './chain.js';
import { type AuditEntry, checkAuditEntry } from './entry.js';
import { AuditTicket, asFailedAttempt, settleTickets } from './ticket.js';
import type { AuditWriterOptions } from './writer.js';

/**
 * A queued entry as the thread is sent it: `[id, at, keyId, operationId, requestId, clientIp,
 * outcome, objectIds, apiVersion, actor]`. The main thread only checks the entry and gives it its id
 * and time; the thread de-duplicates the object ids and stores them (as `auditRow` does,
 * server/audit/record.ts). A batch crosses as one JSON text: under `bench:server` (b) on SQLite,
 * building rows here and structured-cloning them cost the event loop about 4 µs per read.
 */
type Queued = [
  string,
  number,
  string | null,
  string,
  string | null,
  string | null,
  string,
  readonly string[],
  string | null,
  string | null,
];

/** A queued row as `asFailedAttempt` would leave its entry: outcome (index 6) `error`. */
function failedAttempt(row: Queued): Queued {
  const outcome = asFailedAttempt({ outcome: row[6] }).outcome;
  if (outcome === row[6]) return row;
  const copy: Queued = [...row];
  copy[6] = outcome;
  return copy;
}

type Reply = { type: 'done'; ms: number } | { type: 'failed'; message: string };

// The thread's code, plain JavaScript run with `eval` so it loads the same way under tsx, a
// bundle or a test runner. Same statements and rows as `insertAuditBatch`
// (server/audit/record.ts): one row per entry with its distinct object ids as JSON, one
// `audit_batch_objects` row per distinct object of the batch, the rows taking the next places
// of the hash chain. `chainHash` is `chainHash` of server/audit/chain.ts over the fields it
// is sent (`CHAINED_FIELDS`); test/audit/chain.test.ts verifies this thread's rows with that
// one, so the two cannot drift apart unnoticed.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { hash: sha256 } = require('node:crypto');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs, fileMustExist: true });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
const fields = workerData.chainedFields;
function chainHash(previous, row) {
  const parts = [];
  for (const field of fields) {
    const value = row[field];
    if (value !== null && value !== undefined) parts.push(field, String(value));
  }
  return sha256('sha256', previous + '\\n' + JSON.stringify(parts));
}
const insertLog = db.prepare('INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids, batch_id, api_version, actor, chain_seq, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
const insertObject = db.prepare('INSERT INTO audit_batch_objects (object_id, batch_id) VALUES (?, ?)');
const readHead = db.prepare('SELECT seq, hash FROM audit_chain WHERE id = 1');
const moveHead = db.prepare('UPDATE audit_chain SET seq = ?, hash = ? WHERE id = 1');
const store = db.transaction((batchId, rows) => {
  const objects = new Set();
  const head = readHead.get();
  if (head === undefined) throw new Error('the audit chain has no head row (migration 0010)');
  let seq = Number(head.seq);
  let hash = head.hash;
  for (const [id, at, keyId, operationId, requestId, clientIp, outcome, objectIds, apiVersion, actor] of rows) {
    const distinct = [...new Set(objectIds)];
    for (const objectId of distinct) objects.add(objectId);
    seq += 1;
    const row = {
      id, at, key_id: keyId, operation_id: operationId, request_id: requestId,
      client_ip: clientIp, outcome, object_ids: JSON.stringify(distinct), batch_id: batchId,
      api_version: apiVersion, actor, chain_seq: seq,
    };
    hash = chainHash(hash, row);
    insertLog.run(id, at, keyId, operationId, requestId, clientIp, outcome, row.object_ids, batchId, apiVersion, actor, seq, hash);
  }
  if (rows.length > 0) moveHead.run(seq, hash);
  for (const objectId of objects) insertObject.run(objectId, batchId);
});
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const started = performance.now();
  try {
    store.immediate(message.batchId, JSON.parse(message.rows));
    parentPort.postMessage({ type: 'done', ms: performance.now() - started });
  } catch (err) {
    parentPort.postMessage({ type: 'failed', message: String(err && err.message) });
  }
});
`;

/**
 * Group-commits read audit entries from a worker thread with its own connection to the
 * SQLite file, so the batch's inserts and its fsync (`synchronous=FULL`) run beside the event
 * loop instead of stopping it. Same contract as `AuditWriter`: `push` queues (checked at
 * once), a batch is handed to the thread every `intervalMs` (default 5 ms) and committed
 * there in one transaction; `flush()` resolves once everything pushed before it is
 * committed; `close()` flushes and stops the thread.
 *
 * One batch is in flight at a time. While a `record` caller (a read whose answer waits) has an
 * entry queued, the next batch is sent as soon as the one in flight is answered (group
 * commit: batches grow with the load, and no pacing sits in the read's latency). Entries
 * nobody waits for keep the pacing: the next batch no sooner than the last commit took, so
 * the thread then holds the write lock at most about half the time (the main connection waits
 * for it without blocking the event loop, see `SqliteDb`).
 */
export class ThreadAuditWriter {
  readonly #worker: Worker;
  readonly #intervalMs: number;
  readonly #maxBatch: number;
  readonly #maxQueue: number;
  readonly #onError: (err: unknown) => void;
  #queue: Queued[] = [];
  /** The ticket of each queued entry (same index), undefined where nobody waits. */
  #tickets: (AuditTicket | undefined)[] = [];
  /** The ticket entries pushed now join; a new one starts with each batch sent. */
  #open: AuditTicket | undefined;
  #inFlight: Queued[] | undefined;
  #inFlightTickets: (AuditTicket | undefined)[] = [];
  readonly #timer = new BatchTimer(() => this.#send());
  #lastCommitMs = 0;
  /** Some queued entry has a `record` caller waiting for its commit. */
  #urgent = false;
  /** The last batch failed: the next waits the back-off, waiters or not. */
  #failing = false;
  #closed = false;
  #exited = false;
  /** Settled when the batch in flight is answered. */
  #answered: Array<() => void> = [];
  /** Entries refused because the queue was full or the writer closed. */
  dropped = 0;

  /** `path`: the SQLite file (already migrated) the main connection uses. */
  constructor(path: string, options: AuditWriterOptions = {}) {
    this.#intervalMs = options.intervalMs ?? 5;
    this.#maxBatch = options.maxBatch ?? 2000;
    this.#maxQueue = options.maxQueue ?? 20_000;
    this.#onError = options.onError ?? (() => {});
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(THREAD_SOURCE, {
      eval: true,
      workerData: { path, driver, busyTimeoutMs: 5000, chainedFields: [...CHAINED_FIELDS] },
      // A small heap: the thread holds one batch at a time, and its isolate counts in RSS.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 48 },
    });
    // Pending entries alone must not keep a finished process alive; close() flushes.
    this.#worker.unref();
    this.#worker.on('message', (reply: Reply) => this.#onReply(reply));
    this.#worker.on('error', (err) => {
      this.#onError(err);
      this.#onReply({ type: 'failed', message: err.message });
    });
    this.#worker.on('exit', () => {
      this.#exited = true;
      if (this.#inFlight) this.#onReply({ type: 'failed', message: 'audit thread exited' });
    });
  }

  /** Entries waiting to be committed (queued or in flight). */
  get pending(): number {
    return this.#queue.length + (this.#inFlight?.length ?? 0);
  }

  /**
   * Queues an entry (checked now, so a bad one throws here, at its source). Returns false
   * when it was refused: the writer is closed or the queue is full.
   */
  push(entry: AuditEntry): boolean {
    return this.#enqueue(entry) !== undefined;
  }

  /** As `AuditWriter.record`: settled when the entry's batch committed or failed. */
  record(entry: AuditEntry): Promise<void> | undefined {
    return this.#enqueue(entry, true)?.done;
  }

  #enqueue(entry: AuditEntry, waited = false): AuditTicket | undefined {
    checkAuditEntry(entry);
    if (this.#closed || this.#exited || this.pending >= this.#maxQueue) {
      this.dropped++;
      return undefined;
    }
    const at = entry.at ?? Date.now();
    this.#queue.push([
      newId('aud', at),
      at,
      entry.keyId,
      entry.operationId,
      entry.requestId,
      entry.clientIp,
      entry.outcome,
      entry.objectIds.slice(),
      entry.apiVersion ?? null,
      entry.actor ?? null,
    ]);
    this.#open ??= new AuditTicket();
    const ticket = this.#open;
    ticket.add();
    this.#tickets.push(ticket);
    if (waited) this.#urgent = true;
    this.#schedule();
    return ticket;
  }

  /** Resolves once every entry pushed before the call is committed (or failed to). */
  async flush(): Promise<void> {
    this.#clearTimer();
    for (;;) {
      if (this.#inFlight) await new Promise<void>((resolve) => this.#answered.push(resolve));
      if (this.#queue.length === 0 || this.#exited) return;
      const before = this.#queue.length;
      this.#send();
      await new Promise<void>((resolve) => this.#answered.push(resolve));
      // A failing database would otherwise spin here; the entries stay queued.
      if (this.#queue.length >= before) return;
    }
  }

  /** Flushes, refuses further entries and stops the thread. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.postMessage('close');
    await exited;
  }

  #schedule(): void {
    if (this.#inFlight) return;
    // A waiting read: this turn's end, so the reads answered in this turn join the batch.
    this.#timer.after(
      this.#urgent && !this.#failing ? 0 : Math.max(this.#intervalMs, this.#lastCommitMs),
    );
  }

  #clearTimer(): void {
    this.#timer.clear();
  }

  #send(): void {
    if (this.#inFlight || this.#queue.length === 0 || this.#exited) return;
    const batch = this.#queue.splice(0, this.#maxBatch);
    this.#inFlight = batch;
    this.#inFlightTickets = this.#tickets.splice(0, batch.length);
    this.#open = undefined;
    if (this.#queue.length === 0) this.#urgent = false;
    // A retried batch gets a new batch id: the failed attempt's transaction left nothing.
    this.#worker.postMessage({ batchId: newId('audb'), rows: JSON.stringify(batch) });
  }

  #onReply(reply: Reply): void {
    const batch = this.#inFlight;
    if (!batch) return;
    this.#inFlight = undefined;
    const tickets = this.#inFlightTickets;
    this.#inFlightTickets = [];
    if (reply.type === 'done') {
      this.#lastCommitMs = reply.ms;
      this.#failing = false;
      settleTickets(tickets, { ok: true });
    } else {
      const err = new Error(`audit batch failed: ${reply.message}`);
      settleTickets(tickets, { ok: false, err });
      const again = [...batch.map(failedAttempt), ...this.#queue];
      const ticketsAgain = [...batch.map(() => undefined), ...this.#tickets];
      // Beyond the queue's bound the newest entries go; their tickets are told.
      settleTickets(ticketsAgain.slice(this.#maxQueue), { ok: false, err });
      this.#queue = again.slice(0, this.#maxQueue);
      this.#tickets = ticketsAgain.slice(0, this.#maxQueue);
      // Back off: the next attempt waits this long (a locked or failing database).
      this.#lastCommitMs = 100;
      this.#failing = true;
      this.#onError(err);
    }
    const waiting = this.#answered;
    this.#answered = [];
    for (const resolve of waiting) resolve();
    if (this.#queue.length === 0 || this.#closed) return;
    // Reads wait for what queued during that commit: it goes now, as one batch.
    if (this.#urgent && !this.#failing) this.#send();
    else this.#schedule();
  }
}
