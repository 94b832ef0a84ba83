import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * Two records of which API key stands behind something (docs/design.md#webhooks):
 *
 * - `webhooks.bound_key_id`: the restricted key whose read scopes an endpoint's subscription
 *   stands on — the key that created it, or that last changed its `url`, `enabled_events` or
 *   re-enabled it. NULL means a secret key did (it holds every scope for the account). The
 *   delivery worker checks that key before each send: revoked or expired disables the
 *   endpoint, a family it can no longer read is not sent. Existing endpoints get NULL: no
 *   request recorded which key made them.
 * - `idempotency_keys.key_id`: the key that made the stored request. Records are shared by the
 *   account's server keys, but a replayed `createWebhook` carries the signing secret only to
 *   that key (docs/design.md#idempotency). Existing records get NULL, which no key matches:
 *   for their remaining hours a replay never carries a secret.
 */
export const keyBindings: Migration = {
  version: 4,
  name: 'key-bindings',
  up: (dialect) => statements(dialect),
};

function statements(dialect: Dialect): string[] {
  const key = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  return [
    `ALTER TABLE webhooks ADD COLUMN bound_key_id ${key}`,
    `ALTER TABLE idempotency_keys ADD COLUMN key_id ${key}`,
  ];
}
