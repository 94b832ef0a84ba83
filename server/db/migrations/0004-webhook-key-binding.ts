import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * An endpoint remembers the restricted key whose read scopes its subscription stands on
 * (docs/design.md#webhooks): the key that created it, or that last changed its `url`,
 * `enabled_events` or re-enabled it. NULL means a secret key did, which holds every scope for
 * the account. The delivery worker checks that key before each send: revoked or expired
 * disables the endpoint, a family it can no longer read is not sent. Existing endpoints get
 * NULL: no request recorded which key made them, and only secret or restricted keys with
 * `webhooks:write` could have.
 */
export const webhookKeyBinding: Migration = {
  version: 4,
  name: 'webhook-key-binding',
  up: (dialect) => statements(dialect),
};

function statements(dialect: Dialect): string[] {
  const key = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  return [`ALTER TABLE webhooks ADD COLUMN bound_key_id ${key}`];
}
