/**
 * The database's own consistency check after a crash: SQLite's `PRAGMA integrity_check`
 * (opened read-only beside the running service; WAL allows it), PostgreSQL's `amcheck`
 * (`verify_heapam` on every table and `bt_index_check` on every B-tree index of the schema).
 */
import Database from 'better-sqlite3';
import { connect } from '../../../server/db/open.js';
import type { FreshDatabase } from './fresh-database.js';

/** `'ok'`, or what the check reported. */
export async function integrityCheck(database: FreshDatabase): Promise<string> {
  if (database.file !== null) {
    const db = new Database(database.file, { readonly: true, fileMustExist: true });
    try {
      const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
      return rows.map((r) => r.integrity_check).join('; ');
    } finally {
      db.close();
    }
  }
  const db = connect(database.url);
  try {
    // Database-wide, once; the functions live in `public`, outside the per-run schema.
    await db.run('CREATE EXTENSION IF NOT EXISTS amcheck SCHEMA public');
    const problems: string[] = [];
    const tables = await db.all<{ name: string }>(
      `SELECT c.oid::regclass::text AS name FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
    );
    for (const { name } of tables) {
      const rows = await db.all<{ msg: string }>(
        'SELECT msg FROM public.verify_heapam($1::regclass)',
        [name],
      );
      problems.push(...rows.map((r) => `${name}: ${r.msg}`));
    }
    const indexes = await db.all<{ name: string }>(
      `SELECT c.oid::regclass::text AS name FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_am a ON a.oid = c.relam
        WHERE n.nspname = current_schema() AND c.relkind = 'i' AND a.amname = 'btree'`,
    );
    for (const { name } of indexes) {
      // Raises on corruption; the caught message is the report.
      await db.get('SELECT public.bt_index_check($1::regclass, true)', [name]).catch((err) => {
        problems.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
    return problems.length === 0 ? 'ok' : problems.join('; ');
  } finally {
    await db.close();
  }
}
