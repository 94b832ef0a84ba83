import type { Db } from '../db/types.js';
import type { CreatedRange } from '../sql/criteria.js';
import { SqlParams, sqlLimit } from '../sql/params.js';

/** The list parameters every list endpoint shares (docs/design.md#lists). */
export interface ListParams {
  /** 1–100, default 10 (the handler validates; values outside are clamped here). */
  limit?: number;
  /** Return objects older than this id (the next page). */
  startingAfter?: string;
  /** Return objects newer than this id (the previous page). */
  endingBefore?: string;
  created?: CreatedRange;
}

/** One page, newest first. */
export interface Page<T> {
  data: T[];
  /** More objects exist past this page in the direction walked. */
  hasMore: boolean;
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

/** A filter a repository adds: SQL text using placeholders from the shared `params`. */
export type Filter = (params: SqlParams) => string | undefined;

export interface PageQuery<T> {
  /** Table (or table with alias) to read; its `id` column is the cursor. */
  from: string;
  /** Expression for the row's `id` column (e.g. `p.id` when aliased). Default `id`. */
  idColumn?: string;
  /** Expression for the row's `created` column. Default `created`. */
  createdColumn?: string;
  /** Columns to select; `map` turns each row into the caller's object. */
  select: string;
  filters: Filter[];
  list: ListParams;
  map: (row: Record<string, unknown>) => T;
}

/**
 * Cursor pagination over ULID ids, newest first, shared by every list. Ids sort by creation
 * time, so `id < cursor` is "older" and one index `(livemode, id)` serves every page.
 * `endingBefore` walks the other way (ascending) and reverses the page, as Stripe does.
 * One extra row is read to learn `hasMore` without a COUNT.
 */
export async function paginate<T>(db: Db, query: PageQuery<T>): Promise<Page<T>> {
  const limit = clampLimit(query.list.limit);
  const id = query.idColumn ?? 'id';
  const params = new SqlParams();
  const where = criteria(query, params);

  const backwards = query.list.endingBefore !== undefined && query.list.startingAfter === undefined;
  if (query.list.startingAfter !== undefined) {
    where.push(`${id} < ${params.add(query.list.startingAfter)}`);
  } else if (backwards) {
    where.push(`${id} > ${params.add(query.list.endingBefore)}`);
  }
  const sql = `SELECT ${query.select} FROM ${query.from}${
    where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''
  } ORDER BY ${id} ${backwards ? 'ASC' : 'DESC'} LIMIT ${sqlLimit(limit + 1)}`;
  const rows = await db.all(sql, params.values);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return { data: page.map(query.map), hasMore };
}

/** The WHERE terms of a query's filters and `created` range (no cursor). */
function criteria(query: PageQuery<unknown>, params: SqlParams): string[] {
  const created = query.createdColumn ?? 'created';
  const where: string[] = [];
  for (const filter of query.filters) {
    const clause = filter(params);
    if (clause) where.push(clause);
  }
  const range = query.list.created ?? {};
  if (range.gt !== undefined) where.push(`${created} > ${params.add(range.gt)}`);
  if (range.gte !== undefined) where.push(`${created} >= ${params.add(range.gte)}`);
  if (range.lt !== undefined) where.push(`${created} < ${params.add(range.lt)}`);
  if (range.lte !== undefined) where.push(`${created} <= ${params.add(range.lte)}`);
  return where;
}

/** A page with the number of objects matching the query on every page (FHIR's `total`). */
export interface CountedPage<T> extends Page<T> {
  total: number;
}

/**
 * A page and the count of all matches, or the count alone (`countOnly`: FHIR's
 * `_summary=count`). A first page is one statement: the count is a window over the matching
 * rows (`COUNT(*) OVER ()`, computed before `LIMIT`), so the common case, a search's first
 * page, costs no second round trip; `query.from` must be one table (it is joined again to the
 * page's ids). A later page counts with a second statement over the same
 * criteria without the cursor; those two are not one snapshot, so a write between them can
 * make `total` differ from what paging finds by that write.
 */
export async function paginateCounted<T>(
  db: Db,
  query: PageQuery<T>,
  countOnly = false,
): Promise<CountedPage<T>> {
  const params = new SqlParams();
  const where = criteria(query, params);
  const from = `FROM ${query.from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  if (countOnly) {
    const rows = await db.all(`SELECT COUNT(*) AS total_matches ${from}`, params.values);
    return { data: [], hasMore: false, total: Number(rows[0]?.total_matches ?? 0) };
  }
  if (query.list.startingAfter === undefined && query.list.endingBefore === undefined) {
    const limit = clampLimit(query.list.limit);
    const id = query.idColumn ?? 'id';
    // The page's ids (and the count) first, then the selected columns of those rows only: the
    // matches are sorted without their stored JSON, which is read for one page, not for every
    // match (on bench:fhir's 30-match search, 25 µs instead of 37 µs on SQLite).
    const ids = `SELECT ${id} AS page_id, COUNT(*) OVER () AS total_matches ${from} ORDER BY ${id} DESC LIMIT ${sqlLimit(limit + 1)}`;
    const sql = `WITH counted_page AS (${ids}) SELECT ${query.select}, counted_page.total_matches FROM counted_page JOIN ${query.from} ON ${id} = counted_page.page_id ORDER BY ${id} DESC`;
    const rows = await db.all(sql, params.values);
    const total = Number(rows[0]?.total_matches ?? 0);
    return { data: rows.slice(0, limit).map(query.map), hasMore: rows.length > limit, total };
  }
  const page = await paginate(db, query);
  const rows = await db.all(`SELECT COUNT(*) AS total_matches ${from}`, params.values);
  return { ...page, total: Number(rows[0]?.total_matches ?? 0) };
}

/** `limit` as stored queries use it: an integer in 1..100, default 10. */
export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.trunc(limit)));
}
