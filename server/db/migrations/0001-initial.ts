import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * The first schema: every table the service, the webhook worker and the audit trail use.
 * Objects are stored whole as JSON text in `data`, beside the columns queries filter and sort
 * on. Times: `created`/`updated`/`expires_at`/`revoked_at`/`used_at` are unix seconds (as the
 * API shows them); `*_at` columns of internal machinery (idempotency, rate limits, deliveries,
 * audit) are milliseconds.
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  up: (dialect) => statements(dialect),
};

function statements(dialect: Dialect): string[] {
  // Ids and normalised names compare byte-wise in both engines: ULIDs then sort by time and
  // a prefix range (`>= 'smi' AND < 'smj'`) finds exactly the names starting with 'smi'.
  const key = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  return [
    `CREATE TABLE api_keys (
      id ${key} PRIMARY KEY,
      secret_hash TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL,
      livemode INTEGER NOT NULL,
      scopes TEXT NOT NULL,
      allowed_ips TEXT NOT NULL,
      allowed_origins TEXT NOT NULL,
      patient_id ${key},
      rate_limit INTEGER,
      hint TEXT NOT NULL,
      description TEXT,
      created BIGINT NOT NULL,
      expires_at BIGINT,
      revoked_at BIGINT
    )`,
    'CREATE INDEX api_keys_list ON api_keys (kind, livemode, id)',

    `CREATE TABLE patients (
      id ${key} PRIMARY KEY,
      livemode INTEGER NOT NULL,
      created BIGINT NOT NULL,
      updated BIGINT NOT NULL,
      active INTEGER NOT NULL,
      family_norm ${key},
      birth_date TEXT,
      email_norm TEXT,
      phone TEXT,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX patients_list ON patients (livemode, id)',
    'CREATE INDEX patients_active ON patients (livemode, active, id)',
    'CREATE INDEX patients_family ON patients (livemode, family_norm)',
    'CREATE INDEX patients_birth_date ON patients (livemode, birth_date)',
    'CREATE INDEX patients_email ON patients (livemode, email_norm)',
    'CREATE INDEX patients_phone ON patients (livemode, phone)',
    `CREATE TABLE patient_given_names (
      patient_id ${key} NOT NULL REFERENCES patients (id) ON DELETE CASCADE,
      livemode INTEGER NOT NULL,
      position INTEGER NOT NULL,
      given_norm ${key} NOT NULL,
      PRIMARY KEY (patient_id, position)
    )`,
    'CREATE INDEX patient_given_names_search ON patient_given_names (livemode, given_norm)',
    `CREATE TABLE patient_identifiers (
      patient_id ${key} NOT NULL REFERENCES patients (id) ON DELETE CASCADE,
      livemode INTEGER NOT NULL,
      position INTEGER NOT NULL,
      type TEXT,
      system TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (patient_id, position)
    )`,
    'CREATE INDEX patient_identifiers_search ON patient_identifiers (livemode, system, value)',
    // The MRN rule lives in the database, so two concurrent creates cannot both win.
    `CREATE UNIQUE INDEX patient_identifiers_mrn ON patient_identifiers (livemode, system, value)
      WHERE type = 'MR'`,

    `CREATE TABLE appointments (
      id ${key} PRIMARY KEY,
      livemode INTEGER NOT NULL,
      created BIGINT NOT NULL,
      updated BIGINT NOT NULL,
      patient_id ${key} NOT NULL REFERENCES patients (id),
      status TEXT NOT NULL,
      start_at BIGINT,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX appointments_list ON appointments (livemode, id)',
    'CREATE INDEX appointments_patient ON appointments (livemode, patient_id, id)',
    'CREATE INDEX appointments_status ON appointments (livemode, status, id)',

    `CREATE TABLE claims (
      id ${key} PRIMARY KEY,
      livemode INTEGER NOT NULL,
      created BIGINT NOT NULL,
      updated BIGINT NOT NULL,
      patient_id ${key} NOT NULL REFERENCES patients (id),
      appointment_id ${key} REFERENCES appointments (id),
      status TEXT NOT NULL,
      next_action_at BIGINT,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX claims_list ON claims (livemode, id)',
    'CREATE INDEX claims_patient ON claims (livemode, patient_id, id)',
    'CREATE INDEX claims_status ON claims (livemode, status, id)',
    'CREATE INDEX claims_due ON claims (next_action_at)',

    `CREATE TABLE webhooks (
      id ${key} PRIMARY KEY,
      livemode INTEGER NOT NULL,
      created BIGINT NOT NULL,
      updated BIGINT NOT NULL,
      status TEXT NOT NULL,
      url TEXT NOT NULL,
      secret TEXT NOT NULL,
      enabled_events TEXT NOT NULL,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX webhooks_list ON webhooks (livemode, id)',

    `CREATE TABLE events (
      id ${key} PRIMARY KEY,
      livemode INTEGER NOT NULL,
      created BIGINT NOT NULL,
      type TEXT NOT NULL,
      object_id ${key},
      request_id TEXT,
      idempotency_key TEXT,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX events_list ON events (livemode, id)',
    'CREATE INDEX events_type ON events (livemode, type, id)',
    'CREATE INDEX events_object ON events (object_id)',

    `CREATE TABLE webhook_deliveries (
      id ${key} PRIMARY KEY,
      event_id ${key} NOT NULL REFERENCES events (id) ON DELETE CASCADE,
      webhook_id ${key} NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      livemode INTEGER NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at BIGINT,
      locked_by TEXT,
      locked_until BIGINT,
      last_status_code INTEGER,
      last_error TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      UNIQUE (event_id, webhook_id)
    )`,
    'CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)',
    'CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, status)',
    `CREATE TABLE webhook_delivery_attempts (
      id ${key} PRIMARY KEY,
      delivery_id ${key} NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempt INTEGER NOT NULL,
      started_at BIGINT NOT NULL,
      duration_ms INTEGER NOT NULL,
      status_code INTEGER,
      error TEXT,
      succeeded INTEGER NOT NULL
    )`,
    'CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, attempt)',

    `CREATE TABLE tokens (
      id ${key} PRIMARY KEY,
      livemode INTEGER NOT NULL,
      type TEXT NOT NULL,
      key_id ${key},
      created BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      used_at BIGINT,
      data TEXT NOT NULL
    )`,
    'CREATE INDEX tokens_expiry ON tokens (expires_at)',

    `CREATE TABLE idempotency_keys (
      key_id ${key} NOT NULL,
      livemode INTEGER NOT NULL,
      idempotency_key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      state TEXT NOT NULL,
      status INTEGER,
      body TEXT,
      created_at BIGINT NOT NULL,
      locked_at BIGINT NOT NULL,
      PRIMARY KEY (key_id, livemode, idempotency_key)
    )`,
    'CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)',

    `CREATE TABLE rate_limit_buckets (
      bucket_key TEXT PRIMARY KEY,
      tokens DOUBLE PRECISION NOT NULL,
      allowed INTEGER NOT NULL,
      updated_at BIGINT NOT NULL
    )`,

    `CREATE TABLE audit_log (
      id ${key} PRIMARY KEY,
      at BIGINT NOT NULL,
      key_id TEXT,
      operation_id TEXT NOT NULL,
      request_id TEXT,
      client_ip TEXT,
      outcome TEXT NOT NULL,
      object_ids TEXT NOT NULL
    )`,
    `CREATE TABLE audit_objects (
      object_id ${key} NOT NULL,
      audit_id ${key} NOT NULL REFERENCES audit_log (id),
      PRIMARY KEY (object_id, audit_id)
    )`,
    ...appendOnly(dialect, ['audit_log', 'audit_objects']),
  ];
}

/** Triggers that reject UPDATE and DELETE, so the audit trail can only grow. */
function appendOnly(dialect: Dialect, tables: string[]): string[] {
  if (dialect === 'sqlite') {
    return tables.flatMap((table) =>
      ['UPDATE', 'DELETE'].map(
        (op) => `CREATE TRIGGER ${table}_no_${op.toLowerCase()} BEFORE ${op} ON ${table}
          BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END`,
      ),
    );
  }
  return [
    `CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$`,
    ...tables.map(
      (table) => `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION audit_append_only()`,
    ),
  ];
}
