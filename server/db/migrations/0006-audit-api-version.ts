import type { Migration } from './migration.js';

/**
 * The API version each audited request was served in (docs/design.md#versioning), so the
 * owner can see who still uses a version before retiring it (`npm run audit -- versions`).
 * Nullable: rows written before this migration, and refusals audited before the version was
 * chosen, have none; they read as before and the report counts them as "unrecorded". Adding
 * a column fires no row trigger, so the append-only rule of `audit_log` stays as it is.
 */
export const auditApiVersion: Migration = {
  version: 6,
  name: 'audit-api-version',
  up: () => ['ALTER TABLE audit_log ADD COLUMN api_version TEXT'],
};
