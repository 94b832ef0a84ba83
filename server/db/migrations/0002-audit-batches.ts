import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * Read audits index their objects once per batch instead of once per entry: a list read of
 * ten patients cost eleven inserts (one `audit_log` row, ten `audit_objects` rows each with
 * an FK check); now it costs one `audit_log` row carrying its `batch_id`, and the batch adds
 * one `audit_batch_objects` row per distinct object it touched. `accessHistory` goes from an
 * object to its batches, then keeps the batch's rows whose `object_ids` name the object.
 * `audit_objects` stays for the rows written before this migration.
 *
 * No foreign key from `audit_batch_objects` to `audit_log`: a batch id is not unique there.
 * The append-only triggers are the same as 0001's (on PostgreSQL its function is reused).
 */
export const auditBatches: Migration = {
  version: 2,
  name: 'audit-batches',
  up: (dialect) => statements(dialect),
};

function statements(dialect: Dialect): string[] {
  const key = dialect === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  // SQLite: the primary key is the whole row, so a rowid table would store it twice.
  const withoutRowid = dialect === 'sqlite' ? ' WITHOUT ROWID' : '';
  return [
    `ALTER TABLE audit_log ADD COLUMN batch_id ${key}`,
    'CREATE INDEX audit_log_batch ON audit_log (batch_id)',
    `CREATE TABLE audit_batch_objects (
      object_id ${key} NOT NULL,
      batch_id ${key} NOT NULL,
      PRIMARY KEY (object_id, batch_id)
    )${withoutRowid}`,
    ...appendOnly(dialect, 'audit_batch_objects'),
  ];
}

function appendOnly(dialect: Dialect, table: string): string[] {
  if (dialect === 'sqlite') {
    return ['UPDATE', 'DELETE'].map(
      (op) => `CREATE TRIGGER ${table}_no_${op.toLowerCase()} BEFORE ${op} ON ${table}
        BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END`,
    );
  }
  return [
    `CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table}
      FOR EACH ROW EXECUTE FUNCTION audit_append_only()`,
  ];
}
