/**
 * Opening PostgreSQL pools: the URL's user and per-session setting, int8 as a number, and
 * which pools (and their clients) send statements unnamed (`DATABASE_PREPARE=off`).
 */
import { userInfo } from 'node:os';
import pg from 'pg';

/** Where a statement can be sent: the pool (any idle client) or one checked-out client. */
export type Queryable = pg.Pool | pg.PoolClient;

/** int8 (BIGINT, COUNT(*)) comes back as a JS number: our values are ms timestamps and counts. */
const INT8_OID = 20;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Pools, and the clients they connect, whose statements go unnamed. Behind a pooler in
 * transaction mode (PgBouncer 1.18) consecutive transactions of one client may run on
 * different server connections, so a statement prepared by name on one is missing on the next
 * (`prepared statement "pc_…" does not exist`), and no session setting outlives its
 * transaction.
 */
const unnamed = new WeakSet<Queryable>();

/** Whether statements on `on` go unnamed (a pool or client opened with `prepare` false). */
export function isUnnamed(on: Queryable): boolean {
  return unnamed.has(on);
}

/** A pool; `setting` (`name=value`) is given to every session it opens. */
export function openPool(url: string, max: number, prepare: boolean, setting?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: withSessionSetting(withDefaultUser(url), setting),
    max,
    // Fail rather than hang when the server is unreachable or the pool stays exhausted.
    connectionTimeoutMillis: 10_000,
    types: typeParsers,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  if (!prepare) {
    unnamed.add(pool);
    pool.on('connect', (client) => unnamed.add(client));
  }
  return pool;
}

/** The URL with `-c name=value` added to its `options` (which may already set search_path). */
function withSessionSetting(url: string, setting: string | undefined): string {
  if (setting === undefined) return url;
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  parsed.searchParams.set('options', `${options ? `${options} ` : ''}-c ${setting}`);
  return parsed.toString();
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
