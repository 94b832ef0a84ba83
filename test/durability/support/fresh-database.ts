/**
 * A fresh, private database for a child service process: a SQLite file in a new temp dir, or
 * a new schema in the PostgreSQL `test` database. Unlike `test/support/databases.ts`, the
 * database belongs to a child process, so nothing here hooks into vitest's lifecycle.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../../server/db/open.js';
import type { Dialect } from '../../../server/db/types.js';

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';

/** A database the service can open by URL, and how to delete it. */
export interface FreshDatabase {
  dialect: Dialect;
  url: string;
  /** The SQLite file, for integrity checks and fault runs; null for PostgreSQL. */
  file: string | null;
  dispose(): Promise<void>;
}

let pgProbe: Promise<boolean> | undefined;

/** Whether PostgreSQL answers at `POSTGRES_URL` (probed once). */
export function postgresReachable(): Promise<boolean> {
  pgProbe ??= (async () => {
    const admin = connect(POSTGRES_URL);
    try {
      await admin.get('SELECT 1 AS ok');
      return true;
    } catch {
      return false;
    } finally {
      await admin.close().catch(() => {});
    }
  })();
  return pgProbe;
}

/** Creates an empty database of `dialect`; the service migrates it on start. */
export async function freshDatabase(dialect: Dialect): Promise<FreshDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pc-durability-'));
    const file = join(dir, 'service.db');
    return {
      dialect,
      url: `sqlite:${file}`,
      file,
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `dur_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = connect(POSTGRES_URL);
  try {
    await admin.run(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.close();
  }
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    dialect,
    url: url.toString(),
    file: null,
    dispose: async () => {
      const cleaner = connect(POSTGRES_URL);
      try {
        await cleaner.run(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await cleaner.close();
      }
    },
  };
}
