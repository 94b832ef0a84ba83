import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
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
  const chosen = url ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  prepareSqliteFolder(chosen);
  const db = connect(chosen);
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

/**
 * The folder of a SQLite file, before anything opens a file in it: the default database's
 * (`./data`) is made on first start; any other path's folder must exist already — a typo in
 * DATABASE_URL must not create folders wherever it points. A missing one throws `ENOENT`
 * (`explainOpenError` turns it into one line). Nothing to do for memory or PostgreSQL URLs.
 */
export function prepareSqliteFolder(url: string): void {
  const path = sqlitePathOf(url);
  if (path === undefined || path === '' || path === ':memory:') return;
  const folder = dirname(path);
  if (url === DEFAULT_DATABASE_URL) mkdirSync(folder, { recursive: true });
  // ENOENT (missing), ENOTDIR (a part of it is a file), EACCES, as the file system says.
  else if (!statSync(folder).isDirectory()) {
    throw Object.assign(new Error(`${folder} is not a folder`), { code: 'ENOTDIR' });
  }
}

/** The most connections `DATABASE_POOL_SIZE` may ask for per process. */
const MAX_POOL_SIZE = 1000;

/**
 * PostgreSQL connections per process from `DATABASE_POOL_SIZE` (default 10), plus a quarter of
 * that (at least 2) for the non-durable one-statement commits (`PostgresDb.volatile`).
 */
export function poolSizeOf(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.DATABASE_POOL_SIZE?.trim() ?? '';
  if (raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_POOL_SIZE) {
    throw Object.assign(
      new Error(`DATABASE_POOL_SIZE must be a whole number from 1 to ${MAX_POOL_SIZE}`),
      { code: 'POOL_SIZE' },
    );
  }
  return Number(raw);
}

/**
 * Whether PostgreSQL statements are prepared by name (`DATABASE_PREPARE`, default `on`). `off`
 * for a pooler in transaction mode without protocol-level prepared statements (PgBouncer
 * before 1.21): a name prepared on one server connection does not exist on the next.
 */
export function preparedStatementsOf(env: Readonly<Record<string, string | undefined>>): boolean {
  const raw = env.DATABASE_PREPARE?.trim().toLowerCase() ?? '';
  if (raw === '' || raw === 'on' || raw === 'true' || raw === '1') return true;
  if (raw === 'off' || raw === 'false' || raw === '0') return false;
  throw Object.assign(new Error('DATABASE_PREPARE must be on or off (also true/false, 1/0)'), {
    code: 'DATABASE_PREPARE',
  });
}

/** Opens without migrating (tests and tools that manage the schema themselves). */
export function connect(url: string): Db {
  const path = sqlitePathOf(url);
  if (path !== undefined) return openSqlite(path);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return openPostgres(url, poolSizeOf(process.env), preparedStatementsOf(process.env));
  }
  // The URL may hold a password, so only its scheme is named.
  throw new Error(
    `unsupported database URL scheme "${url.split(':')[0]}" (use sqlite: or postgres:)`,
  );
}
