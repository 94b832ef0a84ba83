import { migrations as allMigrations } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';
import type { Db } from './types.js';

/**
 * Brings the schema up to date and returns the versions it applied (empty when current).
 *
 * Safe when several processes start at once: on PostgreSQL a transaction-scoped advisory
 * lock (keyed by the current schema) makes them take turns, and the later ones find nothing
 * left to do; on SQLite `BEGIN IMMEDIATE` does the same. Everything pending runs in that one
 * transaction, so a failed migration leaves the schema as it was.
 */
export async function migrate(
  db: Db,
  migrations: readonly Migration[] = allMigrations,
): Promise<number[]> {
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') {
      await tx.run(
        `SELECT pg_advisory_xact_lock(hashtext('patient-care.migrate.' || current_schema()))`,
      );
    }
    await tx.run(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at BIGINT NOT NULL
      )`,
    );
    const rows = await tx.all<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.up(tx.dialect)) await tx.run(statement);
      await tx.run(
        'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)',
        [migration.version, migration.name, Date.now()],
      );
      applied.push(migration.version);
    }
    return applied;
  });
}

/**
 * Versions this build knows that the database has not applied (readiness: a process started
 * against a schema another deployment has not migrated yet must not take traffic).
 */
export async function pendingMigrations(
  db: Db,
  migrations: readonly Migration[] = allMigrations,
): Promise<number[]> {
  const rows = await db.all<{ version: number | string }>('SELECT version FROM schema_migrations');
  const done = new Set(rows.map((row) => Number(row.version)));
  return migrations.map((m) => m.version).filter((version) => !done.has(version));
}
