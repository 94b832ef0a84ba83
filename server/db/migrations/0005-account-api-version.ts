import type { Migration } from './migration.js';

/**
 * The API version the account is pinned to (docs/design.md#versioning): requests without a
 * `PatientCare-Version` header are served in it. One row, made when the first key is created
 * (pinned to the latest version then); `npm run keys -- version` shows and changes it.
 *
 * An account that already has keys was using 2026-11-01, the only version before this
 * migration, so it is pinned to 2026-11-01: its clients keep getting the shape they know.
 */
export const accountApiVersion: Migration = {
  version: 5,
  name: 'account-api-version',
  up: () => [
    `CREATE TABLE account (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      api_version TEXT NOT NULL,
      pinned_at BIGINT NOT NULL
    )`,
    `INSERT INTO account (id, api_version, pinned_at)
      SELECT 1, '2026-11-01', MIN(created) FROM api_keys HAVING COUNT(*) > 0`,
  ],
};
