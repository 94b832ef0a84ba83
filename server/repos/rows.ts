/** Parses a row's JSON `data` column back into the object that was stored. */
export function parseData<T>(row: Record<string, unknown>): T {
  return JSON.parse(String(row.data)) as T;
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
