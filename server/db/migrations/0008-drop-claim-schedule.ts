import type { Migration } from './migration.js';

/**
 * Claims lose `next_action_at` and its index: the test clearinghouse finds claims due by their
 * status and `updated` (server/webhooks/clearinghouse.ts), so nothing read the column after it
 * was written. The index goes first: SQLite (3.35 and later) refuses to drop an indexed
 * column. Both engines drop a column in place, without rewriting the table's rows.
 */
export const dropClaimSchedule: Migration = {
  version: 8,
  name: 'drop-claim-schedule',
  up: () => ['DROP INDEX claims_due', 'ALTER TABLE claims DROP COLUMN next_action_at'],
};
