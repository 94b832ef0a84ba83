import { migrate } from './migrate.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { Db } from './types.js';

/** Where the data lives when neither an argument nor `DATABASE_URL` says otherwise. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/patient-care.db';

/**
 * Opens the database named by `url` (else `DATABASE_URL`, else the default file) and runs
 * pending migrations. Accepted: `sqlite:PATH`, `sqlite::memory:`, `postgres://…`,
 * `postgresql://…` (add `?options=-c search_path=NAME` to use one schema).
 */
export async function openDb(url?: string): Promise<Db> {
  const db = connect(url ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** The file (or `:memory:`) of a `sqlite:` URL; undefined for other schemes. */
export function sqlitePathOf(url: string): string | undefined {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length).replace(/^\/\//, '') : undefined;
}

/** Opens without migrating (tests and tools that manage the schema themselves). */
export function connect(url: string): Db {
  const path = sqlitePathOf(url);
  if (path !== undefined) return openSqlite(path);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url);
  // The URL may hold a password, so only its scheme is named.
  throw new Error(
    `unsupported database URL scheme "${url.split(':')[0]}" (use sqlite: or postgres:)`,
  );
}
