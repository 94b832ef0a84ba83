import type Database from 'better-sqlite3';
import { DbError, type DbErrorCode } from './errors.js';
import { translatePlaceholders } from './placeholders.js';
import type { RunResult, SqlParams } from './types.js';

interface Prepared {
  stmt: Database.Statement;
  order: number[];
}

type Bindable = string | number | bigint | Buffer | null;

/** Upper bound on cached statements per connection; SQL texts in repositories are static. */
const CACHE_LIMIT = 1000;

/**
 * Prepared statements of one better-sqlite3 connection, cached by `$n` SQL text, so each
 * distinct statement is translated and compiled once per connection.
 */
export class StatementCache {
  readonly #cache = new Map<string, Prepared>();
  constructor(readonly connection: Database.Database) {}

  /** Whether `sql` only reads (so it may run on a read-only connection). */
  isReadonly(sql: string): boolean {
    return this.#prepare(sql).stmt.readonly;
  }

  get<T>(sql: string, params?: SqlParams): T | undefined {
    const { stmt, args } = this.#bind(sql, params);
    return guard(() => (stmt.reader ? (stmt.get(...args) as T | undefined) : noRows(stmt, args)));
  }

  all<T>(sql: string, params?: SqlParams): T[] {
    const { stmt, args } = this.#bind(sql, params);
    return guard(() => (stmt.reader ? (stmt.all(...args) as T[]) : (noRows(stmt, args) ?? [])));
  }

  run(sql: string, params?: SqlParams): RunResult {
    const { stmt, args } = this.#bind(sql, params);
    return guard(() => {
      if (stmt.reader) return { changes: stmt.all(...args).length };
      return { changes: stmt.run(...args).changes };
    });
  }

  #prepare(sql: string): Prepared {
    let prepared = this.#cache.get(sql);
    if (!prepared) {
      const translated = translatePlaceholders(sql);
      const stmt = guard(() => this.connection.prepare(translated.sql));
      prepared = { stmt, order: translated.order };
      if (this.#cache.size >= CACHE_LIMIT) {
        const oldest = this.#cache.keys().next().value;
        if (oldest !== undefined) this.#cache.delete(oldest);
      }
      this.#cache.set(sql, prepared);
    }
    return prepared;
  }

  #bind(
    sql: string,
    params: SqlParams | undefined,
  ): { stmt: Database.Statement; args: Bindable[] } {
    const { stmt, order } = this.#prepare(sql);
    const given = params ?? [];
    const args = order.map((index) => toSqlite(given[index]));
    return { stmt, args };
  }
}

// A statement without a result set asked for rows: run it and report none.
function noRows(stmt: Database.Statement, args: Bindable[]): undefined {
  stmt.run(...args);
  return undefined;
}

function toSqlite(value: SqlParams[number]): Bindable {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value);
  return value as Bindable;
}

/** Runs a driver call, re-throwing its errors as `DbError`. */
export function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw toDbError(err);
  }
}

const CODES: Record<string, DbErrorCode> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique_violation',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique_violation',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key_violation',
  SQLITE_CONSTRAINT_CHECK: 'check_violation',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null_violation',
  SQLITE_BUSY: 'busy',
  SQLITE_BUSY_SNAPSHOT: 'busy',
  SQLITE_LOCKED: 'busy',
};

/** SQLite messages name columns, never bound values, so they are kept. */
export function toDbError(err: unknown): unknown {
  if (err instanceof DbError) return err;
  if (!(err instanceof Error)) return err;
  const driverCode = (err as { code?: unknown }).code;
  if (typeof driverCode !== 'string' || !driverCode.startsWith('SQLITE_')) return err;
  return new DbError(CODES[driverCode] ?? 'other', err.message, driverCode);
}
