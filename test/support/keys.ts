/**
 * API keys for service tests: one call makes a key of any kind and returns its secret.
 */
import type { Db } from '../../server/db/types.js';
import { type CreateKeyOptions, createKey, revokeKey } from '../../server/keys/index.js';

/** A key's secret and id. */
export interface TestKey {
  secret: string;
  id: string;
}

/** Creates a key; defaults to a test-mode secret key. */
export async function makeKey(db: Db, options: Partial<CreateKeyOptions> = {}): Promise<TestKey> {
  const { key, secret } = await createKey(db, { kind: 'secret', livemode: false, ...options });
  return { secret, id: key.id };
}

/** A key that expired an hour ago. */
export async function makeExpiredKey(
  db: Db,
  options: Partial<CreateKeyOptions> = {},
): Promise<TestKey> {
  return makeKey(db, { ...options, nowMs: Date.now() - 2 * 3600_000, expiresInSeconds: 3600 });
}

/** A key that was revoked. */
export async function makeRevokedKey(
  db: Db,
  options: Partial<CreateKeyOptions> = {},
): Promise<TestKey> {
  const key = await makeKey(db, options);
  await revokeKey(db, key.id);
  return key;
}
