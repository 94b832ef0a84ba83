import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * Idempotency records move from "per API key and mode" to the scope the spec states (see
 * `spec/guides/idempotency.md`): the account's server keys (secret and restricted) share one
 * namespace per mode, so a retry sent after a key rotation replays instead of writing twice;
 * a publishable key keeps its own (it is public, and must not be able to claim the keys a
 * server will send), and ephemeral keys share one per patient.
 *
 * The primary key changes, which SQLite can only do by rebuilding the table, so both engines
 * rebuild it the same way. Existing records get the namespace of the key that made them.
 * Two keys of one account that used the same Idempotency-Key in the last 24 h now collide:
 * the completed record wins over a running claim (a claim's write never committed), then the
 * older one, as if the later request had arrived after this migration.
 */
export const idempotencyNamespace: Migration = {
  version: 3,
  name: 'idempotency-namespace',
  up: (dialect) => statements(dialect),
};

function statements(dialect: Dialect): string[] {
  const key = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  return [
    `CREATE TABLE idempotency_keys_v3 (
      namespace ${key} NOT NULL,
      livemode INTEGER NOT NULL,
      idempotency_key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      state TEXT NOT NULL,
      status INTEGER,
      body TEXT,
      created_at BIGINT NOT NULL,
      locked_at BIGINT NOT NULL,
      PRIMARY KEY (namespace, livemode, idempotency_key)
    )`,
    // `WHERE 1 = 1` keeps SQLite from reading ON CONFLICT as part of the join.
    `INSERT INTO idempotency_keys_v3 (namespace, livemode, idempotency_key, request_hash, state,
        status, body, created_at, locked_at)
      SELECT CASE k.kind
          WHEN 'ephemeral' THEN 'patient:' || COALESCE(k.patient_id, k.id)
          WHEN 'publishable' THEN 'publishable:' || k.id
          ELSE 'account' END,
        i.livemode, i.idempotency_key, i.request_hash, i.state, i.status, i.body, i.created_at,
        i.locked_at
      FROM idempotency_keys i LEFT JOIN api_keys k ON k.id = i.key_id
      WHERE 1 = 1
      ORDER BY CASE WHEN i.state = 'completed' THEN 0 ELSE 1 END, i.created_at, i.key_id
      ON CONFLICT (namespace, livemode, idempotency_key) DO NOTHING`,
    'DROP TABLE idempotency_keys',
    'ALTER TABLE idempotency_keys_v3 RENAME TO idempotency_keys',
    'CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)',
  ];
}
