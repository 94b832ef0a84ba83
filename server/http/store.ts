/**
 * The storage functions the HTTP layer calls, gathered in one object so `buildApp` can take
 * them as an option (tests may wrap one to count calls) while production passes the storage
 * helper's repositories unchanged. The shapes follow the storage contract in common.md.
 */
import type { Db } from '../db/types.js';
import type { KeyKind } from './route-types.js';

/** An API key as the key repository returns it (never the secret). */
export interface StoredKey {
  readonly id: string;
  readonly kind: KeyKind;
  readonly livemode: boolean;
  readonly scopes: readonly string[];
  readonly allowedIps: readonly string[] | null;
  readonly patientId: string | null;
  /** When the key stops working: a `Date`, ms or unix seconds, an ISO string, or null. */
  readonly expiresAt: unknown;
  /** Set once the key is revoked. */
  readonly revokedAt: unknown;
  /** Requests per second overriding the mode's default, or null. */
  readonly rateLimit: number | null;
}

export interface TakeTokenArgs {
  bucketKey: string;
  capacity: number;
  refillPerSecond: number;
  nowMs: number;
}

export interface TakeTokenResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface IdempotencyArgs {
  keyId: string;
  livemode: boolean;
  idempotencyKey: string;
  requestHash: string;
  nowMs: number;
}

export type BeginIdempotentResult =
  | { state: 'started' }
  | { state: 'replay'; status: number; body: unknown }
  | { state: 'in_use' }
  | { state: 'reused' };

/** One audit row: who touched which objects, never the PHI itself (api.md §11). */
export interface AuditEntry {
  keyId: string;
  operationId: string;
  objectIds: string[];
  requestId: string;
  clientIp: string;
  outcome: AuditOutcome;
  at: number;
}

export type AuditOutcome = 'success' | 'denied' | 'failure';

/** The batched writer for read audit rows (group commit). */
export interface AuditSink {
  push(entry: AuditEntry): void;
  flush(): Promise<void>;
}

/** Everything the HTTP layer needs from storage. */
export interface HttpStore {
  findKeyBySecret(db: Db, secret: string): Promise<StoredKey | undefined>;
  takeToken(db: Db, args: TakeTokenArgs): Promise<TakeTokenResult>;
  beginIdempotent(db: Db, args: IdempotencyArgs): Promise<BeginIdempotentResult>;
  completeIdempotent(
    tx: Db,
    args: IdempotencyArgs & { status: number; body: unknown },
  ): Promise<unknown>;
  abandonIdempotent(db: Db, args: IdempotencyArgs): Promise<unknown>;
  /** Records a write's audit row inside the write's transaction. */
  recordAudit(tx: Db, entry: AuditEntry): Promise<unknown>;
}
