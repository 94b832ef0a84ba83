import type { Db } from '../db/types.js';
import type { ApiKeyRecord } from '../keys/record.js';
import { createKey } from '../keys/store.js';

/** Ephemeral keys live 15 minutes (docs/design.md#keys). */
export const EPHEMERAL_KEY_TTL_SECONDS = 15 * 60;

export interface CreateEphemeralKeyInput {
  livemode: boolean;
  patientId: string;
  /** A subset of patients:read, appointments:read, appointments:write. */
  scopes: readonly string[];
  ttlSeconds?: number;
  nowMs?: number;
  /** The actor of the minting request; the key's requests are audited as this actor. */
  actor?: string | null;
}

/**
 * Creates an `ek_…` key limited to one patient; its id (`ephkey_…`) is the ephemeral_key
 * object's id. Returns the secret once; only the hash is stored. Throws `KeyOptionsError`
 * on scopes outside the ephemeral set.
 */
export function createEphemeralKey(
  db: Db,
  input: CreateEphemeralKeyInput,
): Promise<{ key: ApiKeyRecord; secret: string }> {
  return createKey(db, {
    kind: 'ephemeral',
    livemode: input.livemode,
    scopes: input.scopes,
    patientId: input.patientId,
    expiresInSeconds: input.ttlSeconds ?? EPHEMERAL_KEY_TTL_SECONDS,
    actor: input.actor ?? null,
    ...(input.nowMs === undefined ? {} : { nowMs: input.nowMs }),
  });
}
