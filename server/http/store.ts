/**
 * The storage functions the HTTP layer calls, gathered in one object so `buildApp` can take
 * them as an option (a test may wrap one to count calls or fail on purpose) while production
 * passes the storage repositories unchanged (`default-store.ts`).
 */

import type { AuditEntry, AuditOutcome } from '../audit/index.js';
import type { Db } from '../db/types.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { BeginInput, BeginResult, IdempotencyScope } from '../repos/idempotency.js';
import type { TakeTokenInput, TakeTokenResult } from '../repos/rate-limits.js';

export type {
  ApiKeyRecord,
  AuditEntry,
  AuditOutcome,
  BeginInput,
  BeginResult,
  TakeTokenInput,
  TakeTokenResult,
};

/**
 * Where read audit rows go: the group-committing `AuditWriter` in production. `push` returns
 * false when it refuses an entry (closed, or the database is not keeping up); `record` queues
 * the same way and returns a promise settled when the entry's batch commits (rejected when
 * it fails), or undefined when refused: the reply waits for it (docs/design.md#audit-on-record).
 */
export interface AuditSink {
  push(entry: AuditEntry): boolean;
  record(entry: AuditEntry): Promise<void> | undefined;
}

/** Everything the HTTP layer needs from storage. */
export interface HttpStore {
  findKeyBySecret(db: Db, secret: string): Promise<ApiKeyRecord | undefined>;
  takeToken(db: Db, input: TakeTokenInput): Promise<TakeTokenResult>;
  beginIdempotent(db: Db, input: BeginInput): Promise<BeginResult>;
  completeIdempotent(tx: Db, input: BeginInput & { status: number; body: unknown }): Promise<void>;
  abandonIdempotent(db: Db, input: IdempotencyScope): Promise<void>;
  /** Records a write's audit row inside the write's transaction. */
  recordAudit(tx: Db, entry: AuditEntry): Promise<unknown>;
}
