/**
 * What `restore` checks once a backup is in place, before it says the database is usable:
 * the schema's migrations, the doctor's checks of the stored rows, and the triggers that make
 * the audit trail append-only (a restore that lost them would let the trail be edited).
 */
import type { CommandIo } from '../cli/command.js';
import { pendingMigrations } from '../db/migrate.js';
import type { Db } from '../db/types.js';
import { doctorCli } from '../doctor/cli.js';

/**
 * The audit tables whose UPDATE and DELETE triggers refuse every change (created by
 * migrations 0001-initial and 0002-audit-batches).
 */
export const APPEND_ONLY_TABLES = ['audit_log', 'audit_objects', 'audit_batch_objects'] as const;

/** Audit tables that do not refuse both UPDATE and DELETE: none when the trail is protected. */
export async function unprotectedAuditTables(db: Db): Promise<string[]> {
  const guarded = new Map<string, Set<string>>(APPEND_ONLY_TABLES.map((t) => [t, new Set()]));
  if (db.dialect === 'sqlite') {
    const rows = await db.all<{ tbl_name: string; sql: string }>(
      "SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'",
    );
    for (const row of rows) {
      const ops = guarded.get(row.tbl_name);
      // A trigger of ours aborts: `BEFORE UPDATE|DELETE … RAISE(ABORT`.
      const op = /\bBEFORE\s+(UPDATE|DELETE)\b/i.exec(row.sql)?.[1]?.toUpperCase();
      if (ops !== undefined && op !== undefined && /RAISE\s*\(\s*ABORT/i.test(row.sql)) ops.add(op);
    }
  } else {
    // tgtype bits: 2 BEFORE, 8 DELETE, 16 UPDATE (PostgreSQL's pg_trigger.h).
    const rows = await db.all<{ relname: string; tgtype: number }>(
      `SELECT c.relname, t.tgtype FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
          AND t.tgenabled <> 'D'`,
    );
    for (const row of rows) {
      const ops = guarded.get(row.relname);
      if (ops === undefined || (row.tgtype & 2) === 0) continue;
      if (row.tgtype & 8) ops.add('DELETE');
      if (row.tgtype & 16) ops.add('UPDATE');
    }
  }
  // A table an earlier release did not have yet (its migration pending) has nothing to guard.
  const tables = new Set(
    (
      await db.all<{ name: string }>(
        db.dialect === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'table'"
          : 'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()',
      )
    ).map((row) => row.name),
  );
  return [...guarded]
    .filter(([table, ops]) => tables.has(table) && !(ops.has('UPDATE') && ops.has('DELETE')))
    .map(([table]) => table);
}

/**
 * Checks a restored database and prints what it found; exit code 0 when it is usable (older
 * migrations pending are fine: the service applies them at start), 1 otherwise.
 */
export async function verifyRestored(db: Db, io: CommandIo): Promise<number> {
  let pending: number[];
  try {
    pending = await pendingMigrations(db);
  } catch {
    io.err(
      'restore: the restored database has no schema_migrations table: not a Patient-Care database',
    );
    return 1;
  }
  const unprotected = await unprotectedAuditTables(db);
  const audit = await db.get<{ n: number | string }>('SELECT count(*) AS n FROM audit_log');
  const doctor = await doctorCli(db, { limit: 10, json: false }, io);
  io.out(
    pending.length === 0
      ? 'restore: schema current'
      : `restore: schema from an earlier release (migrations ${pending.join(', ')} pending; the service or \`patient-care migrate\` applies them)`,
  );
  if (unprotected.length > 0) {
    io.err(`restore: audit tables without their append-only triggers: ${unprotected.join(', ')}`);
    return 1;
  }
  io.out(`restore: audit trail append-only, ${Number(audit?.n ?? 0)} entries`);
  return doctor;
}
