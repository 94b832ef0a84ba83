import type { Migration } from './migration.js';

/**
 * Practitioners (docs/design.md#resources): a document table like the patients', with the
 * columns its lists and FHIR search filter on, and the appointment's optional link to one.
 * `name_norm` holds every part of the name, normalised, space-separated and space-led, so FHIR
 * `name=` is a substring match on ` <prefix>` (practitioner lists are short: no index on it).
 * Appointments gain a nullable column, which both engines add without rewriting rows.
 */
export const practitioners: Migration = {
  version: 11,
  name: 'practitioners',
  up: (dialect) => {
    const key = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
    return [
      `CREATE TABLE practitioners (
        id ${key} PRIMARY KEY,
        livemode INTEGER NOT NULL,
        created BIGINT NOT NULL,
        updated BIGINT NOT NULL,
        active INTEGER NOT NULL,
        family_norm ${key},
        name_norm ${key},
        npi TEXT,
        data TEXT NOT NULL
      )`,
      'CREATE INDEX practitioners_list ON practitioners (livemode, id)',
      'CREATE INDEX practitioners_active ON practitioners (livemode, active, id)',
      'CREATE INDEX practitioners_family ON practitioners (livemode, family_norm)',
      'CREATE INDEX practitioners_npi ON practitioners (livemode, npi)',
      `ALTER TABLE appointments ADD COLUMN practitioner_id ${key}`,
      'CREATE INDEX appointments_practitioner ON appointments (livemode, practitioner_id, id)',
    ];
  },
};
