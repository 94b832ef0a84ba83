/**
 * `patient-care backup --to FILE` and `restore --from FILE --to DATABASE_URL`: a backup of
 * either database as one file, and its restore into an empty database (or, told `--force`, over
 * one), checked afterwards. The file's first bytes say what it is: a SQLite database (which the
 * service can also start on directly) or a PostgreSQL custom-format dump.
 */
import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { CommandFailure, type CommandIo, UsageError } from '../cli/command.js';
import { connect, sqlitePathOf } from '../db/open.js';
import { dumpPostgres, dumpSchemas, pgTarget, restorePostgres, withSchema } from './postgres.js';
import { backupSqlite, restoreSqlite, sqliteTableCount } from './sqlite.js';
import { verifyRestored } from './verify.js';

type Kind = 'sqlite' | 'postgres';

function kindOf(url: string): Kind {
  if (sqlitePathOf(url) !== undefined) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  // The URL may hold a password, so only its scheme is named.
  throw new UsageError(
    `unsupported database URL scheme "${url.split(':')[0]}" (use sqlite: or postgres:)`,
  );
}

function sqliteFile(url: string): string {
  const path = sqlitePathOf(url) ?? '';
  if (path === '' || path === ':memory:') {
    throw new UsageError('an in-memory database has nothing to back up or restore into');
  }
  return path;
}

/** What a backup file holds, from its first bytes. */
function backupKind(file: string): Kind | undefined {
  const head = Buffer.alloc(16);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') === 'SQLite format 3\0') return 'sqlite';
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'postgres';
  return undefined;
}

/** Backs up the database of `url` into `to`; refuses to replace an existing file unless `force`. */
export async function backup(
  url: string,
  to: string,
  { force }: { force: boolean },
  io: CommandIo,
): Promise<number> {
  const kind = kindOf(url);
  if (existsSync(to) && !force) {
    throw new CommandFailure(`${to} exists; choose a new file, or --force to replace it`);
  }
  const started = performance.now();
  if (kind === 'sqlite') {
    const { pages } = await backupSqlite(sqliteFile(url), to);
    io.out(`backup: ${to} (SQLite, ${pages} pages, ${mb(to)}) in ${seconds(started)}`);
  } else {
    const partial = `${to}.partial`;
    try {
      await dumpPostgres(url, partial);
      renameSync(partial, to);
    } finally {
      rmSync(partial, { force: true });
    }
    const schema = pgTarget(url).schema;
    io.out(
      `backup: ${to} (PostgreSQL custom-format dump${schema ? ` of schema ${schema}` : ''}, ${mb(to)}) in ${seconds(started)}`,
    );
  }
  return 0;
}

/**
 * Restores the backup `from` into the database of `url`, then checks it (`verifyRestored`).
 * A database that already holds tables is replaced only with `force`.
 */
export async function restore(
  from: string,
  url: string,
  { force }: { force: boolean },
  io: CommandIo,
): Promise<number> {
  const target = kindOf(url);
  if (!existsSync(from) || !statSync(from).isFile())
    throw new CommandFailure(`no backup file ${from}`);
  const kind = backupKind(from);
  if (kind === undefined) {
    throw new CommandFailure(
      `${from} is neither a SQLite database nor a PostgreSQL custom-format dump`,
    );
  }
  if (kind !== target) {
    throw new CommandFailure(
      `${from} is a ${name(kind)} backup; it restores into ${name(kind)} only`,
    );
  }
  let checkUrl = url;
  if (kind === 'sqlite') {
    const path = sqliteFile(url);
    const tables = sqliteTableCount(path);
    if (tables > 0 && !force) {
      throw new CommandFailure(
        `${path} already holds a database (${tables} tables); --force replaces it`,
      );
    }
    await restoreSqlite(from, path);
  } else {
    const schemas = await dumpSchemas(from);
    const named = pgTarget(url).schema;
    // pg_restore keeps schema names: a dump of schema A restores into schema A.
    if (named !== undefined && schemas.length > 0 && !schemas.includes(named)) {
      throw new CommandFailure(
        `the backup holds schema ${schemas.join(', ')}, not ${named}: restore it into a database where that schema is free`,
      );
    }
    const tables = await pgTableCount(url, schemas);
    if (tables > 0 && !force) {
      throw new CommandFailure(
        `the target already holds ${tables} tables in schema ${schemas.join(', ')}; --force replaces them`,
      );
    }
    await restorePostgres(url, from, tables > 0);
    const [only, ...others] = schemas;
    if (named === undefined && only !== undefined && others.length === 0) {
      checkUrl = withSchema(url, only);
    }
  }
  io.out(`restore: ${from} restored`);
  const db = connect(checkUrl);
  try {
    return await verifyRestored(db, io);
  } finally {
    await db.close();
  }
}

async function pgTableCount(url: string, schemas: readonly string[]): Promise<number> {
  const db = connect(url);
  try {
    const names = schemas.length > 0 ? schemas : ['public'];
    const row = await db.get<{ n: number | string }>(
      `SELECT count(*) AS n FROM pg_tables WHERE schemaname IN (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      [...names],
    );
    return Number(row?.n ?? 0);
  } finally {
    await db.close();
  }
}

function name(kind: Kind): string {
  return kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
}

function mb(file: string): string {
  return `${(statSync(file).size / 1_048_576).toFixed(1)} MB`;
}

function seconds(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}
