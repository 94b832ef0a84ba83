import { runDeferred } from '../db/deferred.js';
import type { Db } from '../db/types.js';
import { volatileAll } from '../db/volatile.js';

/** How long a completed response is replayed (docs/design.md#idempotency: 24 h). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A `running` record older than this belongs to a writer that died before committing. */
export const STALE_RUNNING_MS = 60 * 1000;

/**
 * Which record: an idempotency key is remembered per namespace and mode. The namespace is
 * chosen by the HTTP layer (`idempotencyNamespace` in `server/http/idempotency.ts`).
 */
export interface IdempotencyScope {
  /** `account`, `publishable:<key id>` or `patient:<patient id>`. */
  namespace: string;
  livemode: boolean;
  idempotencyKey: string;
}

export interface BeginInput extends IdempotencyScope {
  /** A hash of what makes the request the same request (method, path, body). */
  requestHash: string;
  nowMs: number;
  /** The API key making the request; a replay reports the original one's (`replayFor`). */
  keyId?: string;
}

export type BeginResult =
  | { state: 'started' }
  | {
      state: 'replay';
      status: number;
      body: unknown;
      bodyText: string;
      /** The key whose request stored the answer (null for records older than the column). */
      keyId: string | null;
    }
  | { state: 'in_use' }
  | { state: 'reused' };

interface Row {
  request_hash: string;
  state: string;
  status: number | null;
  body: string | null;
  created_at: number;
  locked_at: number;
  key_id: string | null;
}

const SCOPE = 'namespace = $1 AND livemode = $2 AND idempotency_key = $3';

/**
 * Claims an idempotency key for a request, or says what to answer instead:
 * `started` — go ahead, then `completeIdempotent` in the write's transaction (or
 * `abandonIdempotent` if the request fails before writing); `replay` — the first response,
 * to send again; `reused` — same key, other request (400); `in_use` — the first request is
 * still running (409).
 *
 * Race-free across processes: the first claim is an INSERT … ON CONFLICT DO NOTHING (exactly
 * one of N concurrent callers inserts), and takeovers of expired or stale records are
 * compare-and-set UPDATEs on the timestamp read.
 */
export async function beginIdempotent(db: Db, input: BeginInput): Promise<BeginResult> {
  const scope = [input.namespace, input.livemode, input.idempotencyKey];
  for (let round = 0; round < 5; round++) {
    // The claim commits without its own fsync: the write it precedes commits durably later
    // on the same log (SQLite WAL, PostgreSQL WAL), which flushes this earlier commit too, so
    // an acknowledged write never lacks its claim; a claim lost in a crash answered nothing.
    // On PostgreSQL one round trip (`volatileAll`).
    const inserted = await volatileAll(
      db,
      `INSERT INTO idempotency_keys (namespace, livemode, idempotency_key, request_hash, state,
        created_at, locked_at, key_id) VALUES ($1, $2, $3, $4, 'running', $5, $5, $6)
        ON CONFLICT (namespace, livemode, idempotency_key) DO NOTHING RETURNING 1 AS claimed`,
      [...scope, input.requestHash, input.nowMs, input.keyId ?? null],
    );
    if (inserted.length === 1) return { state: 'started' };
    // The record in the way may sit in a group commit that has not landed (SQLite): an empty
    // durable transaction resolves once everything before it committed, so the read below
    // sees it, and never replays a response that is not yet on disk. Only retries pay this.
    await db.transaction(async () => {});

    const row = await db.get<Row>(`SELECT * FROM idempotency_keys WHERE ${SCOPE}`, scope);
    if (!row) continue; // deleted (abandoned) in between: try to insert again
    if (Number(row.created_at) + IDEMPOTENCY_TTL_MS <= input.nowMs) {
      // Expired: the key is free again; take the record over as a fresh one.
      if (await takeOver(db, input, row, 'created_at')) return { state: 'started' };
      continue;
    }
    if (row.request_hash !== input.requestHash) return { state: 'reused' };
    if (row.state === 'completed') {
      const bodyText = row.body ?? 'null';
      return {
        state: 'replay',
        status: Number(row.status),
        body: parseBody(bodyText),
        bodyText,
        keyId: row.key_id ?? null,
      };
    }
    if (Number(row.locked_at) + STALE_RUNNING_MS <= input.nowMs) {
      if (await takeOver(db, input, row, 'locked_at')) return { state: 'started' };
      continue;
    }
    return { state: 'in_use' };
  }
  return { state: 'in_use' };
}

async function takeOver(
  db: Db,
  input: BeginInput,
  row: Row,
  column: 'created_at' | 'locked_at',
): Promise<boolean> {
  const result = await db.run(
    `UPDATE idempotency_keys SET request_hash = $4, state = 'running', status = NULL, body = NULL,
      created_at = $5, locked_at = $5, key_id = $7 WHERE ${SCOPE} AND ${column} = $6`,
    [
      input.namespace,
      input.livemode,
      input.idempotencyKey,
      input.requestHash,
      input.nowMs,
      Number(row[column]),
      input.keyId ?? null,
    ],
  );
  return result.changes === 1;
}

/**
 * Stores the response of a started request. Call with the transaction of the write it
 * answers, so the write and its stored response commit together or not at all. `body` may
 * be the JSON text already sent, or a value to serialise.
 *
 * It does not rely on the claim of `beginIdempotent` still being there: that claim commits
 * without waiting for its own fsync, and a failed group commit (a disk error) can drop it
 * after the caller went ahead. So the response is an upsert — the record is written whole if
 * the claim vanished — and throws `IdempotencyConflictError` when the key meanwhile holds
 * another request's record, rolling this write back rather than acknowledging a second one.
 */
export async function completeIdempotent(
  tx: Db,
  input: BeginInput & { status: number; body: unknown },
): Promise<void> {
  const bodyText = typeof input.body === 'string' ? input.body : JSON.stringify(input.body ?? null);
  // Deferred: on PostgreSQL sent with the write's other deferred rows in one round trip.
  await runDeferred(
    tx,
    `INSERT INTO idempotency_keys (namespace, livemode, idempotency_key, request_hash, state,
        status, body, created_at, locked_at, key_id)
      VALUES ($1, $2, $3, $4, 'completed', $5, $6, $7, $7, $8)
      ON CONFLICT (namespace, livemode, idempotency_key) DO UPDATE
        SET state = 'completed', status = excluded.status, body = excluded.body
        WHERE idempotency_keys.state = 'running'
          AND idempotency_keys.request_hash = excluded.request_hash`,
    [
      input.namespace,
      input.livemode,
      input.idempotencyKey,
      input.requestHash,
      input.status,
      bodyText,
      input.nowMs,
      input.keyId ?? null,
    ],
    { changes: 1, otherwise: () => new IdempotencyConflictError() },
  );
}

/** The key was completed by another request while this one ran: this write must not commit. */
export class IdempotencyConflictError extends Error {
  constructor() {
    super('idempotency key completed by another request');
    this.name = 'IdempotencyConflictError';
  }
}

/** Releases a started key whose request failed before writing, so a retry can run. */
export async function abandonIdempotent(db: Db, input: IdempotencyScope): Promise<void> {
  await db.run(`DELETE FROM idempotency_keys WHERE ${SCOPE} AND state = 'running'`, [
    input.namespace,
    input.livemode,
    input.idempotencyKey,
  ]);
}

/**
 * Frees every `running` claim: for a server starting on a SQLite file, which only it serves,
 * they are all left by a process that died mid-request. Their writes never committed (a
 * write commits together with its stored response), so a retry may run at once instead of
 * meeting 409 `idempotency_key_in_use` until the claim is 60 s stale. Not for PostgreSQL,
 * where other live processes own running claims. Returns how many were freed.
 */
export async function releaseAbandonedClaims(db: Db): Promise<number> {
  const result = await db.run("DELETE FROM idempotency_keys WHERE state = 'running'");
  return result.changes;
}

/** Deletes records past their 24 h; returns how many. */
export async function purgeExpiredIdempotency(db: Db, nowMs: number): Promise<number> {
  const result = await db.run('DELETE FROM idempotency_keys WHERE created_at <= $1', [
    nowMs - IDEMPOTENCY_TTL_MS,
  ]);
  return result.changes;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
