import { PostgresDb } from './postgres.js';
import type { Db, SqlParams } from './types.js';

/**
 * One statement committed by itself without waiting for the disk, returning its rows (give it
 * a `RETURNING` clause to learn what it changed): the same as
 * `db.transaction((tx) => tx.all(sql, params), { durable: false })`, which is what SQLite
 * runs, but on PostgreSQL one round trip on a pool whose sessions have
 * `synchronous_commit = off` instead of four (`PostgresDb.volatile`).
 */
export function volatileAll<T = Record<string, unknown>>(
  db: Db,
  sql: string,
  params: SqlParams,
): Promise<T[]> {
  if (db instanceof PostgresDb) return db.volatile<T>(sql, params);
  return db.transaction((tx) => tx.all<T>(sql, params), { durable: false });
}
