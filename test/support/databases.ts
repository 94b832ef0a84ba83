/**
 * Databases for tests: each call opens a fresh, private database (SQLite: a file in a new
 * temp dir; PostgreSQL: a new schema in the `test` database), so parallel test files and
 * parallel runs never see each other's rows. PostgreSQL comes from `TEST_DATABASE_URL`
 * (default `postgres://127.0.0.1:5432/test`); when it is unreachable, one notice is printed
 * and `postgresAvailable()` is false, so suites skip only their PostgreSQL half.
 *
 * @example
 * const pg = await postgresAvailable();
 * describe.each(DIALECTS)('%s', (dialect) => {
 *   const ctx = useTestDb(dialect, pg);
 *   it('…', async () => { await ctx.db.run(…) });
 * });
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { migrate } from '../../server/db/migrate.js';
import { connect } from '../../server/db/open.js';
import type { Db, Dialect } from '../../server/db/types.js';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';

/** A private database for one test. */
export interface TestDb {
  dialect: Dialect;
  /** A URL another process (or `openDb`) can open to reach the same database. */
  url: string;
  db: Db;
  /** Closes `db` and deletes the database (file or schema). */
  dispose(): Promise<void>;
}

let probe: Promise<boolean> | undefined;

/** Whether PostgreSQL answers; probed once per process, with one notice when it does not. */
export function postgresAvailable(): Promise<boolean> {
  probe ??= (async () => {
    const admin = connect(POSTGRES_URL);
    try {
      await admin.get('SELECT 1 AS ok');
      return true;
    } catch {
      console.warn(
        `NOTICE: PostgreSQL not reachable at ${redact(POSTGRES_URL)}; skipping the PostgreSQL half of the storage suites.`,
      );
      return false;
    } finally {
      await admin.close().catch(() => {});
    }
  })();
  return probe;
}

/** The dialects to run, each with whether it is available here. */
export async function availableDialects(): Promise<
  Array<{ dialect: Dialect; available: boolean }>
> {
  const pg = await postgresAvailable();
  return DIALECTS.map((dialect) => ({ dialect, available: dialect === 'sqlite' || pg }));
}

/** Opens a fresh database of `dialect`, migrated unless `migrate: false`. */
export async function openTestDb(
  dialect: Dialect,
  options: { migrate?: boolean } = {},
): Promise<TestDb> {
  const { url, drop } = dialect === 'sqlite' ? newSqlite() : await newSchema();
  const db = connect(url);
  if (options.migrate !== false) await migrate(db);
  return {
    dialect,
    url,
    db,
    dispose: async () => {
      await db.close();
      await drop();
    },
  };
}

/**
 * Gives the tests of the surrounding `describe` a private database; read it from the
 * returned holder inside tests. By default one migrated database per `describe` is emptied
 * before each test (creating a PostgreSQL schema and migrating it costs most of a second
 * here, emptying it a few ms); `fresh: 'each'` makes a new one per test, which
 * `migrate: false` implies.
 */
export function useTestDb(
  dialect: Dialect,
  options: { migrate?: boolean; fresh?: 'each' | 'file' } = {},
): { db: Db; url: string } {
  const holder = {} as { db: Db; url: string };
  let current: TestDb | undefined;
  const open = async () => {
    current = await openTestDb(dialect, options);
    holder.db = current.db;
    holder.url = current.url;
  };
  if (options.fresh === 'each' || options.migrate === false) {
    beforeEach(open);
    afterEach(async () => current?.dispose());
  } else {
    beforeAll(open);
    beforeEach(async () => emptyTables(holder.db));
    afterAll(async () => current?.dispose());
  }
  return holder;
}

// Children before parents, so foreign keys hold while deleting. The audit tables refuse
// DELETE by design and are left alone: audit tests look rows up by their own object ids.
const DELETE_ORDER = [
  'webhook_delivery_attempts',
  'webhook_deliveries',
  'events',
  'claims',
  'appointments',
  'patient_given_names',
  'patient_identifiers',
  'patients',
  'webhooks',
  'tokens',
  'idempotency_keys',
  'rate_limit_buckets',
  'api_keys',
];
const KEEP = new Set([
  'schema_migrations',
  'audit_log',
  'audit_objects',
  'audit_batch_objects',
  'audit_chain',
]);

/** Deletes every row of every table except the migration record and the audit trail. */
export async function emptyTables(db: Db): Promise<void> {
  const rows = await db.all<{ name: string }>(
    db.dialect === 'postgres'
      ? 'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()'
      : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  const present = new Set(rows.map((row) => row.name));
  const others = [...present].filter((name) => !KEEP.has(name) && !DELETE_ORDER.includes(name));
  await db.transaction(async (tx) => {
    for (const table of [...DELETE_ORDER.filter((t) => present.has(t)), ...others]) {
      await tx.run(`DELETE FROM ${table}`);
    }
  });
}

/**
 * `describe` for each available dialect: SQLite always, PostgreSQL when reachable (skipped
 * with the printed notice otherwise). `body` gets the dialect.
 */
export async function describeEachDatabase(
  name: string,
  body: (dialect: Dialect) => void,
): Promise<void> {
  for (const { dialect, available } of await availableDialects()) {
    describe.skipIf(!available)(`${name} [${dialect}]`, () => body(dialect));
  }
}

function newSqlite(): { url: string; drop: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'patient-care-test-'));
  return {
    url: `sqlite:${join(dir, 'test.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function newSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `t_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = connect(POSTGRES_URL);
  try {
    await admin.run(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.close();
  }
  return {
    url: withParam(POSTGRES_URL, 'options', `-c search_path=${schema}`),
    drop: async () => {
      const cleaner = connect(POSTGRES_URL);
      try {
        await cleaner.run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await cleaner.close();
      }
    },
  };
}

function withParam(url: string, key: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(key, value);
  return parsed.toString();
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
