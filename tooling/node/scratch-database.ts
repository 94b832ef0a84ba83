/**
 * A database made for one run and removed after it: a SQLite file in a new temporary folder,
 * or a new schema of a PostgreSQL database (the connection URL gets `search_path` set to it),
 * so a fuzz or bench run never reads or leaves other data.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../server/db/open.js';
import type { Dialect } from '../../server/db/types.js';

export interface ScratchDatabase {
  dialect: Dialect;
  /** The URL to open it with (`DATABASE_URL`). */
  url: string;
  /** Removes the folder or drops the schema. */
  drop(): Promise<void>;
}

/** `url` with every connection's `search_path` set to `schema`. */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

async function run(url: string, sql: string): Promise<void> {
  const admin = connect(url);
  try {
    await admin.run(sql);
  } finally {
    await admin.close();
  }
}

/**
 * A new scratch database named after `prefix` (letters, digits, `_`): a SQLite file, or with
 * `postgresUrl` a new schema of that database.
 */
export async function scratchDatabase(
  prefix: string,
  postgresUrl?: string,
): Promise<ScratchDatabase> {
  if (postgresUrl === undefined) {
    const dir = mkdtempSync(join(tmpdir(), `patient-care-${prefix}-`));
    return {
      dialect: 'sqlite',
      url: `sqlite:${join(dir, `${prefix}.db`)}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  try {
    await run(postgresUrl, `CREATE SCHEMA ${schema}`);
  } catch (error) {
    throw new Error(
      `PostgreSQL at ${new URL(postgresUrl).host} refused a new schema (${(error as Error).message})`,
    );
  }
  return {
    dialect: 'postgres',
    url: withSearchPath(postgresUrl, schema),
    drop: () => run(postgresUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}
