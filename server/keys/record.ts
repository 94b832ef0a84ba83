import type { KeyKind } from './format.js';

/** A stored API key as the service uses it (never the secret). Times are unix seconds. */
export interface ApiKeyRecord {
  id: string;
  kind: KeyKind;
  livemode: boolean;
  /** Granted scopes; for secret keys every scope is implied and this is empty. */
  scopes: string[];
  /** CIDR ranges the key may be used from; empty = anywhere. */
  allowedIps: string[];
  /** Browser origins a publishable key may be used from; empty = any. */
  allowedOrigins: string[];
  /** The one patient an ephemeral key is limited to. */
  patientId: string | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** Requests per second overriding the mode default. */
  rateLimit: number | null;
  /** `sk_test_…a1b2`: enough to recognise a key, useless to use it. */
  hint: string;
  description: string | null;
  created: number;
  /** Every request must name its actor (`PatientCare-Actor`); else `400 parameter_missing`. */
  requireActor: boolean;
  /** The actor an ephemeral key was minted for, audited on each of its requests; else null. */
  actor: string | null;
}

/** Whether a key may be used at `nowMs`. */
export type KeyState = 'active' | 'expired' | 'revoked';

/**
 * The state of a key at a moment: revoked wins over expired. Revocation takes effect at once
 * whatever the caller's clock says (`revokedAt` only records when), so a key revoked "in the
 * same second" or by a host whose clock runs ahead is never still usable.
 */
export function keyState(key: ApiKeyRecord, nowMs: number = Date.now()): KeyState {
  const now = Math.floor(nowMs / 1000);
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return 'active';
}

/** Row of `api_keys` → record. */
export function toKeyRecord(row: Record<string, unknown>): ApiKeyRecord {
  const nullableNumber = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(row.id),
    kind: String(row.kind) as KeyKind,
    livemode: Number(row.livemode) === 1,
    scopes: JSON.parse(String(row.scopes)) as string[],
    allowedIps: JSON.parse(String(row.allowed_ips)) as string[],
    allowedOrigins: JSON.parse(String(row.allowed_origins)) as string[],
    patientId: row.patient_id === null ? null : String(row.patient_id),
    expiresAt: nullableNumber(row.expires_at),
    revokedAt: nullableNumber(row.revoked_at),
    rateLimit: nullableNumber(row.rate_limit),
    hint: String(row.hint),
    description: row.description === null ? null : String(row.description),
    created: Number(row.created),
    // Rows read before migration 0009 ran have neither column.
    requireActor: Number(row.require_actor ?? 0) === 1,
    actor: row.actor === null || row.actor === undefined ? null : String(row.actor),
  };
}
