import type { Db } from '../db/types.js';
import type { DocTable } from '../resources/index.js';
import { meetSchema, meetSchemaText } from './stored-shape.js';

/**
 * Parses a row's JSON `data` column back into the object that was stored, with the fields the
 * spec added since it was written (stored-shape.ts).
 */
export function parseData<T>(row: Record<string, unknown>): T {
  return meetSchema(JSON.parse(String(row.data)) as T);
}

/** A stored object as it left `JSON.stringify`: its id (for the audit) and its JSON text. */
export interface StoredJson {
  readonly id: string;
  readonly json: string;
}

/** A row's `id` and its `data` JSON text as stored (for lists sent without re-serialising). */
export function storedJson(row: Record<string, unknown>): StoredJson {
  const id = String(row.id);
  return { id, json: meetSchemaText(String(row.data), id) };
}

/** 0/1 integer column → boolean; the schema stores booleans as integers in both engines. */
export function bool(value: unknown): boolean {
  return value === 1 || value === true || value === '1';
}

/** A nullable numeric column as `number | null`. */
export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** Unix seconds for a millisecond clock reading. */
export function toSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * The stored object `id` of `table` in that mode, or `undefined` (also when it belongs to
 * the other mode). The SQL text is fixed per table, so each keeps one prepared statement.
 */
export async function getDoc<T>(
  db: Db,
  table: DocTable,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  const row = await db.get(`SELECT data FROM ${table} WHERE id = $1 AND livemode = $2`, [
    id,
    livemode,
  ]);
  return row ? parseData<T>(row) : undefined;
}
