import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * The acting person (issue 43, docs/design.md#keys): who behind an API key made the request.
 *
 * - `audit_log.actor`: the request's `PatientCare-Actor` (or the actor an ephemeral key was
 *   minted for); NULL when none was sent and for every row written before this migration.
 *   Adding a column fires no row trigger, so the append-only rule stays as it is.
 * - `audit_log_actor`: `npm run audit -- --actor ID` lists one actor's rows newest first by
 *   index. Partial (only rows with an actor), so a request without the header costs no index
 *   entry.
 * - `api_keys.require_actor`: 1 when the key's requests must carry the header (`keys create
 *   --require-actor`); existing keys get 0 and keep working as before.
 * - `api_keys.actor`: the actor an ephemeral key was minted for (the actor of its
 *   `POST /v1/ephemeral_keys`); NULL for other kinds.
 */
export const auditActor: Migration = {
  version: 9,
  name: 'audit-actor',
  up: (dialect) => statements(dialect),
};

function statements(dialect: Dialect): string[] {
  // Byte-wise order in both engines, as the ids (0001-initial.ts).
  const text = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  return [
    `ALTER TABLE audit_log ADD COLUMN actor ${text}`,
    'CREATE INDEX audit_log_actor ON audit_log (actor, id) WHERE actor IS NOT NULL',
    'ALTER TABLE api_keys ADD COLUMN require_actor INTEGER NOT NULL DEFAULT 0',
    `ALTER TABLE api_keys ADD COLUMN actor ${text}`,
  ];
}
