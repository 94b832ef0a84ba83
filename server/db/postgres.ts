import { createHash } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';
import { DbError, type DbErrorCode } from './errors.js';
import { PgSharedReads } from './pg-shared-reads.js';
import { markTransaction } from './transaction-handles.js';
import type { Db, RunResult, SqlParams, TransactionOptions } from './types.js';

/** int8 (BIGINT, COUNT(*)) comes back as a JS number: our values are ms timestamps and counts. */
const INT8_OID = 20;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Pool size when the URL does not say; the service is mostly I/O on this pool. */
const DEFAULT_POOL_SIZE = 10;

/**
 * Opens a PostgreSQL pool from a `postgres://` URL (pass `?options=-c search_path=s` to work
 * in one schema). Statements run as named prepared statements, named by a hash of their text,
 * so each connection parses a statement once and reuses the plan afterwards.
 */
export function openPostgres(url: string, poolSize = DEFAULT_POOL_SIZE): PostgresDb {
  const pool = new pg.Pool({
    connectionString: withDefaultUser(url),
    max: poolSize,
    // Fail rather than hang when the server is unreachable or the pool stays exhausted.
    connectionTimeoutMillis: 10_000,
    types: typeParsers,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return new PostgresDb(pool);
}

/**
 * node-postgres falls back to `$USER`, which services and containers often lack; like libpq,
 * use the operating-system user when neither the URL nor `PGUSER` names one.
 */
function withDefaultUser(url: string): string {
  const parsed = new URL(url);
  if (
    parsed.username ||
    parsed.searchParams.has('user') ||
    process.env.PGUSER ||
    process.env.USER
  ) {
    return url;
  }
  parsed.username = encodeURIComponent(userInfo().username);
  return parsed.toString();
}

type Queryable = pg.Pool | pg.PoolClient;

const names = new Map<string, string>();

/** A stable statement name per SQL text (PostgreSQL limits names to 63 bytes). */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `pc_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

// Only plain DML is prepared by name; utility statements (SET, DDL, advisory locks in
// migrations) run unnamed so they never occupy a slot in a connection's statement cache.
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

async function query<T>(on: Queryable, sql: string, params?: SqlParams): Promise<pg.QueryResult> {
  const values = (params ?? []).map(toPg);
  const config: pg.QueryConfig = PREPARABLE.test(sql)
    ? { name: statementName(sql), text: sql, values }
    : { text: sql, values };
  try {
    return await on.query<T & pg.QueryResultRow>(config);
  } catch (err) {
    throw toDbError(err);
  }
}

function toPg(value: SqlParams[number]): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  #closed = false;
  readonly #shared: PgSharedReads;
  constructor(readonly pool: pg.Pool) {
    this.#shared = new PgSharedReads(async (sql, params) => (await query(pool, sql, params)).rows);
  }

  /** What read sharing has done so far (see `PgSharedReads`). */
  get readStats(): Readonly<PgSharedReads['stats']> {
    return this.#shared.stats;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    if (PgSharedReads.shareable(sql)) return (await this.#shared.all(sql, params)) as T[];
    return (await query<T>(this.pool, sql, params)).rows as T[];
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    return { changes: (await query(this.pool, sql, params)).rowCount ?? 0 };
  }

  /** One pooled client for the whole transaction, released whatever happens. */
  async transaction<T>(fn: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw toDbError(err);
    }
    const tx = new PostgresTx(client, 1);
    let broken: Error | undefined;
    try {
      await query(client, 'BEGIN');
      if (options?.durable === false) await query(client, 'SET LOCAL synchronous_commit = off');
      const result = await fn(tx);
      await query(client, 'COMMIT');
      return result;
    } catch (err) {
      try {
        await query(client, 'ROLLBACK');
      } catch (rollbackErr) {
        // A connection that cannot roll back is not given back to the pool.
        broken = rollbackErr instanceof Error ? rollbackErr : new Error('rollback failed');
      }
      throw err;
    } finally {
      tx.end();
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.pool.end();
  }
}

class PostgresTx implements Db {
  readonly dialect = 'postgres' as const;
  #open = true;
  constructor(
    readonly client: pg.PoolClient,
    readonly depth: number,
  ) {
    markTransaction(this);
  }

  end(): void {
    this.#open = false;
  }

  async get<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined> {
    this.#assertOpen();
    return (await query<T>(this.client, sql, params)).rows[0] as T | undefined;
  }

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    this.#assertOpen();
    return (await query<T>(this.client, sql, params)).rows as T[];
  }

  async run(sql: string, params?: SqlParams): Promise<RunResult> {
    this.#assertOpen();
    return { changes: (await query(this.client, sql, params)).rowCount ?? 0 };
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    this.#assertOpen();
    const name = `sp_${this.depth}`;
    const inner = new PostgresTx(this.client, this.depth + 1);
    await query(this.client, `SAVEPOINT ${name}`);
    try {
      const result = await fn(inner);
      await query(this.client, `RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await query(this.client, `ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    } finally {
      inner.end();
    }
  }

  async close(): Promise<void> {}

  #assertOpen(): void {
    if (!this.#open) throw new Error('transaction handle used after the transaction ended');
  }
}

const PG_CODES: Record<string, DbErrorCode> = {
  '23505': 'unique_violation',
  '23503': 'foreign_key_violation',
  '23514': 'check_violation',
  '23502': 'not_null_violation',
  '40001': 'serialization_failure',
  '40P01': 'serialization_failure',
  '55P03': 'busy',
};

/**
 * Driver errors without values: `detail` and `where` are dropped, and messages of data
 * errors (class 22, which quote the offending input) are replaced by a generic one.
 */
function toDbError(err: unknown): unknown {
  if (err instanceof DbError || !(err instanceof Error)) return err;
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  // Socket errors (ECONNREFUSED, ...) carry no SQLSTATE; their messages hold no data.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) {
    return new DbError('connection', err.message, typeof code === 'string' ? code : undefined);
  }
  const mapped = PG_CODES[code] ?? (code.startsWith('08') ? 'connection' : 'other');
  const message = code.startsWith('22') ? `invalid data (SQLSTATE ${code})` : err.message;
  return new DbError(
    mapped,
    message,
    code,
    typeof constraint === 'string' ? constraint : undefined,
  );
}
