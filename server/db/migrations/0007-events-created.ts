import type { Migration } from './migration.js';

/**
 * An index on events' `created` (docs/design.md#retention), so the retention round finds the
 * events past their 30 days in batches of the oldest, an index range however large the table,
 * and finds none without a scan. Ids are time-ordered too, but they are minted from each
 * process's clock and held monotonic, so an id does not bound `created` exactly.
 * On PostgreSQL the build blocks writes to `events` while it runs (about a second per million
 * rows); migrations run before the service listens.
 */
export const eventsCreated: Migration = {
  version: 7,
  name: 'events-created',
  up: () => ['CREATE INDEX events_created ON events (created, id)'],
};
