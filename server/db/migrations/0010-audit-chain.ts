import type { Dialect } from '../types.js';
import type { Migration } from './migration.js';

/**
 * The audit trail's hash chain (server/audit/chain.ts, docs/design.md#audit-chain): every row
 * from now on carries its place in the chain (`chain_seq`, unique) and its `hash`; the chain's
 * head is the one row of `audit_chain`, which every audit insert locks and moves in its own
 * transaction. Rows already stored cannot be chained by SQL (SQLite has no SHA-256), so the
 * chain starts after them, at the fixed `GENESIS_HASH`; the head records how many there were
 * and the last of their ids, so `audit verify` can still tell one inserted later.
 *
 * Adding columns fires no row trigger; the head is the only row of `audit_chain` that can
 * change, and only forward (its trigger refuses a smaller place and any DELETE).
 */
export const auditChain: Migration = {
  version: 10,
  name: 'audit-chain',
  up: (dialect) => statements(dialect),
};

/** `GENESIS_HASH` of server/audit/chain.ts as it was when this migration was written. */
const GENESIS = 'bc1c52eb0f6376e961a8483b7cc3d78106732f8f1d9c16cb1c36edd0a102191b';

function statements(dialect: Dialect): string[] {
  return [
    'ALTER TABLE audit_log ADD COLUMN chain_seq BIGINT',
    'ALTER TABLE audit_log ADD COLUMN hash TEXT',
    'CREATE UNIQUE INDEX audit_log_chain ON audit_log (chain_seq)',
    `CREATE TABLE audit_chain (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      seq BIGINT NOT NULL,
      hash TEXT NOT NULL,
      legacy_rows BIGINT NOT NULL,
      legacy_last_id TEXT
    )`,
    `INSERT INTO audit_chain (id, seq, hash, legacy_rows, legacy_last_id)
      SELECT 1, 0, '${GENESIS}', COUNT(*), MAX(id) FROM audit_log`,
    ...forwardOnly(dialect),
  ];
}

/** The head may only move forward and never goes away: a slip in code, not a defence. */
function forwardOnly(dialect: Dialect): string[] {
  if (dialect === 'sqlite') {
    return [
      `CREATE TRIGGER audit_chain_forward BEFORE UPDATE ON audit_chain
        WHEN NEW.seq < OLD.seq OR NEW.legacy_rows <> OLD.legacy_rows
        BEGIN SELECT RAISE(ABORT, 'audit_chain only moves forward'); END`,
      `CREATE TRIGGER audit_chain_no_delete BEFORE DELETE ON audit_chain
        BEGIN SELECT RAISE(ABORT, 'audit_chain is append-only'); END`,
    ];
  }
  return [
    `CREATE FUNCTION audit_chain_forward() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' OR NEW.seq < OLD.seq OR NEW.legacy_rows <> OLD.legacy_rows THEN
          RAISE EXCEPTION 'audit_chain only moves forward';
        END IF;
        RETURN NEW;
      END $$`,
    `CREATE TRIGGER audit_chain_forward BEFORE UPDATE OR DELETE ON audit_chain
      FOR EACH ROW EXECUTE FUNCTION audit_chain_forward()`,
  ];
}
