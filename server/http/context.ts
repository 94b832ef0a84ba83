/**
 * What every handler receives besides the validated request: the database, the calling key
 * (its mode decides which data the handler may see), request facts for events and audit, a
 * clock, a logger, and `write`, the one way to change data.
 */

import type { FastifyBaseLogger } from 'fastify';
import { CURRENT_API_VERSION } from '../config.js';
import { DbError } from '../db/errors.js';
import type { Db } from '../db/types.js';
import { ApiError, OUTAGE_RETRY_AFTER_SECONDS } from '../errors.js';
import type { AuthenticatedKey } from './auth.js';
import type { IdempotencyRecord } from './idempotency.js';
import type { AuditEntry, AuditOutcome, AuditSink, HttpStore } from './store.js';

/** The least a reply has: a status and a body. */
export interface ReplyLike {
  readonly status: number | string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The handler context (`Ctx` of `HandlerMap<OperationTypes, Ctx>`). */
export interface HandlerContext {
  readonly db: Db;
  /** The calling key. */
  readonly key: AuthenticatedKey;
  /** The key's mode: handlers read and write only objects of this mode. */
  readonly livemode: boolean;
  /** `req_…`, also in `Request-Id` and in error bodies; events record it as `request.id`. */
  readonly requestId: string;
  /** The request's `Idempotency-Key`, or null; events record it as `request.idempotency_key`. */
  readonly idempotencyKey: string | null;
  /** The client's address (the socket's, or from a trusted proxy). */
  readonly clientIp: string;
  readonly operationId: string;
  /** The request's logger; never log PHI or request bodies with it. */
  readonly log: FastifyBaseLogger;
  /**
   * The operator allows webhook endpoints on loopback and private addresses
   * (`WEBHOOK_ALLOW_PRIVATE_TARGETS`, see `server/config.ts`).
   */
  readonly allowPrivateWebhookTargets: boolean;
  /**
   * The dated version the request is served in. Handlers speak the latest shape whatever it
   * is; it only decides defaults that name a version (a new webhook endpoint's `api_version`).
   */
  readonly apiVersion: string;
  /**
   * The person or system acting (`PatientCare-Actor`, or the actor an ephemeral key was
   * minted for), stored on every audit row of the request; null when none was named.
   */
  readonly actor: string | null;
  /** The current time in epoch milliseconds (a fixed clock in tests). */
  now(): number;
  /**
   * Runs `fn` in one write transaction and returns its reply. The idempotency record's response
   * and the audit rows of `audit()` calls made inside `fn` are written in the same transaction,
   * so a committed change always has both. Call it once per request and return its reply.
   * When PostgreSQL aborts the transaction for a deadlock or serialization failure, `fn` runs
   * again in a new one (at most three times in all), so it must do nothing outside `tx`.
   *
   * @example
   * return ctx.write(async (tx) => {
   *   await insertRecord(PATIENT, tx, patient);
   *   ctx.audit([patient.id]);
   *   return { status: 200, body: patient };
   * });
   */
  write<R extends ReplyLike>(fn: (tx: Db) => Promise<R>): Promise<R>;
  /**
   * Records that this request touched these objects (ids only, never PHI; include the
   * patient's id for its appointments and claims). Inside `write` the row joins the write's
   * transaction; elsewhere (reads) it is group-committed a few ms later, and the reply is sent
   * only once that batch committed (`RequestContext.recorded`). Throws 503 when the audit
   * writer refuses the entry, so PHI is never returned without a record of it.
   */
  audit(objectIds: readonly string[], outcome?: AuditOutcome): void;
  /**
   * Throws 403 `insufficient_scope` when an ephemeral key limited to another patient makes the
   * request; a no-op for other kinds of key.
   */
  assertPatient(patientId: string): void;
}

/** What `createContext` needs from the request and the app. */
export interface ContextInit {
  db: Db;
  store: Pick<HttpStore, 'completeIdempotent' | 'recordAudit'>;
  audit: AuditSink | null;
  clock: () => number;
  key: AuthenticatedKey;
  requestId: string;
  idempotencyKey: string | null;
  clientIp: string;
  operationId: string;
  log: FastifyBaseLogger;
  idempotency: IdempotencyRecord | null;
  /** Throws when a status is not one the route lists (a handler bug). */
  checkStatus(status: number): void;
  allowPrivateWebhookTargets: boolean;
  /** Default: the latest version. */
  apiVersion?: string;
  /** Default: none named. */
  actor?: string | null;
}

/** The context as the route sees it: the handler's, and what the reply must wait for. */
export interface RequestContext extends HandlerContext {
  /**
   * Settles once every read-audit row of the request so far is committed; undefined when
   * there is none to wait for. Rejects with 503 `service_unavailable` (and `Retry-After`) when
   * a batch failed: the answer is then not sent.
   */
  recorded(): Promise<void> | undefined;
}

/**
 * The 503 of a read whose audit row could not be put on record (the writer refused it: its
 * queue is full or it is closed; or its batch failed): retrying later is the fix, as for a
 * database outage, and nothing of the answer was sent.
 */
function auditUnavailable(cause?: unknown): ApiError {
  return new ApiError('service_unavailable', {
    ...(cause === undefined ? {} : { cause }),
    headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
  });
}

/** Builds the context of one request. */
export function createContext(init: ContextInit): RequestContext {
  let writeStarted = false;
  let inWrite: AuditEntry[] | null = null;
  /** The distinct commit promises of the request's read-audit rows (usually one). */
  const awaited: Promise<void>[] = [];

  const entry = (objectIds: readonly string[], outcome: AuditOutcome): AuditEntry => ({
    keyId: init.key.id,
    operationId: init.operationId,
    objectIds: [...objectIds],
    requestId: init.requestId,
    clientIp: init.clientIp,
    outcome,
    at: init.clock(),
    apiVersion: init.apiVersion ?? CURRENT_API_VERSION,
    actor: init.actor ?? null,
  });

  return {
    db: init.db,
    key: init.key,
    livemode: init.key.livemode,
    requestId: init.requestId,
    idempotencyKey: init.idempotencyKey,
    clientIp: init.clientIp,
    operationId: init.operationId,
    log: init.log,
    allowPrivateWebhookTargets: init.allowPrivateWebhookTargets,
    apiVersion: init.apiVersion ?? CURRENT_API_VERSION,
    actor: init.actor ?? null,
    now: init.clock,

    async write<R extends ReplyLike>(fn: (tx: Db) => Promise<R>): Promise<R> {
      if (writeStarted) {
        // A second transaction could commit after the first stored its response, and a replay
        // would then not match what happened; one write per request keeps them equal.
        throw new Error(`ctx.write called twice in ${init.operationId}`);
      }
      writeStarted = true;
      const once = () => {
        // A fresh list per attempt: a rolled-back attempt's audit rows were never written.
        const pending: AuditEntry[] = [];
        return init.db.transaction(async (tx) => {
          inWrite = pending;
          let result: R;
          try {
            result = await fn(tx);
          } finally {
            inWrite = null;
          }
          const status = Number(result.status);
          init.checkStatus(status);
          for (const row of pending) await init.store.recordAudit(tx, row);
          if (init.idempotency !== null) {
            await init.store.completeIdempotent(tx, {
              ...init.idempotency.args,
              status,
              body: result.body ?? null,
            });
          }
          return result;
        });
      };
      const reply = await retryingConflicts(once);
      if (init.idempotency !== null) init.idempotency.completed = true;
      return reply;
    },

    audit(objectIds, outcome = 'success') {
      const row = entry(objectIds, outcome);
      if (inWrite !== null) {
        inWrite.push(row);
        return;
      }
      if (init.audit === null) return;
      const committed = init.audit.record(row);
      if (committed === undefined) {
        // PHI is not handed out unless its access is on record.
        init.log.error({ operationId: init.operationId }, 'audit writer refused an entry');
        throw auditUnavailable();
      }
      if (awaited.at(-1) !== committed) awaited.push(committed);
    },

    recorded() {
      const [only, ...more] = awaited;
      if (only === undefined) return undefined;
      const all = more.length === 0 ? only : Promise.all(awaited).then(() => {});
      return all.catch((err: unknown) => {
        init.log.error({ operationId: init.operationId }, 'audit batch failed: answer withheld');
        throw auditUnavailable(err);
      });
    },

    assertPatient(patientId) {
      if (init.key.kind === 'ephemeral' && init.key.patientId !== patientId) {
        throw new ApiError('insufficient_scope', {
          message: 'This ephemeral key is limited to a different patient.',
        });
      }
    },
  };
}

/**
 * The context of a public operation (`security: []`, the health probes): no key, so nothing
 * keyed exists. Reaching for the key, a write or an audit row there is a bug in the handler,
 * and fails loudly (500) instead of acting for nobody.
 */
export function publicContext(init: {
  db: Db;
  clock: () => number;
  requestId: string;
  clientIp: string;
  operationId: string;
  log: FastifyBaseLogger;
}): HandlerContext {
  const keyless = (what: string): never => {
    throw new Error(`${init.operationId} is public: it has no ${what}`);
  };
  return {
    db: init.db,
    get key(): AuthenticatedKey {
      return keyless('API key');
    },
    get livemode(): boolean {
      return keyless('mode');
    },
    requestId: init.requestId,
    idempotencyKey: null,
    clientIp: init.clientIp,
    operationId: init.operationId,
    log: init.log,
    now: init.clock,
    // Public handlers register no webhook endpoints; the strict answer costs nothing.
    allowPrivateWebhookTargets: false,
    // Public operations are outside `/v1` and its versions.
    apiVersion: CURRENT_API_VERSION,
    // Public operations audit nothing, so they have no actor to record.
    actor: null,
    write: () => keyless('write access'),
    audit: () => keyless('audit trail'),
    assertPatient: () => keyless('patient'),
  };
}

/** Whole attempts of one write transaction when PostgreSQL aborts it for a lock conflict. */
const WRITE_ATTEMPTS = 3;

/**
 * Runs `once` again, whole, when PostgreSQL aborted it with a deadlock (40P01) or a
 * serialization failure (40001); nothing of an aborted attempt was committed, so the request
 * is simply decided again. Lock order rules out the deadlocks known (endpoint before
 * deliveries: `repos/webhooks.ts` `lockWebhook`); the worker's batched settlements still lock
 * several deliveries in the order the plan visits them, which a concurrent endpoint delete
 * can cross. Bounded: a third abort in a row is an error like any other.
 */
async function retryingConflicts<T>(once: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (err) {
      const conflict = err instanceof DbError && err.code === 'serialization_failure';
      if (!conflict || attempt >= WRITE_ATTEMPTS) throw err;
    }
  }
}
