/**
 * Searchset Bundles (docs/design.md#fhir-r4): one page of matches, newest first, with `total`
 * (every match, on every page), a `self` link and, when more match, a `next` link that repeats
 * the search with `_cursor` set to the last entry's id. Every URL is absolute, on the base the
 * FHIR scope worked out (`base-url.ts`: `PUBLIC_URL`, else the listening address, never the
 * `Host` header). Parameters lenient handling ignored are named in an OperationOutcome entry
 * (`search.mode = outcome`) and left out of the links; `_summary=count` has no entries.
 */
import type { JsonText } from '../../contract/route-types.js';
import type { CountedPage } from '../repos/pagination.js';
import type { StoredJson } from '../repos/rows.js';
import type { OperationOutcome } from './errors.js';
import { toFhirId } from './ids.js';
import type { RenderCache } from './render-cache.js';
import { requestInfo } from './request-info.js';

/** A search's query as validated, carrying the FHIR scope's request info. */
export type SearchQuery = Readonly<Record<string, unknown>>;

interface MatchEntry<R> {
  fullUrl: string;
  resource: R;
  search: { mode: 'match' };
}

interface OutcomeEntry {
  resource: OperationOutcome;
  search: { mode: 'outcome' };
}

/** The Bundle of one page. */
export interface SearchsetBundle<R> {
  resourceType: 'Bundle';
  type: 'searchset';
  total: number;
  link: { relation: 'self' | 'next'; url: string }[];
  entry?: (MatchEntry<R> | OutcomeEntry)[];
}

/** Characters `application/x-www-form-urlencoded` writes as they are (URLSearchParams). */
const FORM_PLAIN = /^[\w*.-]*$/;

/** `name=value` as URLSearchParams writes it; its own text when nothing needs escaping. */
function formPair(name: string, value: string): string {
  return FORM_PLAIN.test(name) && FORM_PLAIN.test(value)
    ? `${name}=${value}`
    : new URLSearchParams([[name, value]]).toString();
}

/** The query's parameters but `_cursor` as form text, names in a stable (sorted) order. */
function queryPairs(query: SearchQuery): string {
  const pairs: string[] = [];
  for (const name of Object.keys(query).sort()) {
    if (name === '_cursor') continue;
    const value = query[name];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      pairs.push(formPair(name, String(item)));
    }
  }
  return pairs.join('&');
}

/** `url` with the query string `pairs` and, when given, `_cursor` last. */
function withQuery(url: string, pairs: string, cursor: string | undefined): string {
  const all =
    cursor === undefined
      ? pairs
      : pairs === ''
        ? formPair('_cursor', cursor)
        : `${pairs}&${formPair('_cursor', cursor)}`;
  return all === '' ? url : `${url}?${all}`;
}

/** `self` and, when more match, `next` (the same search with `_cursor` replaced). */
function links(
  base: string,
  type: string,
  query: SearchQuery,
  page: CountedPage<{ id: string }>,
): SearchsetBundle<unknown>['link'] {
  const url = `${base}/${type}`;
  const pairs = queryPairs(query);
  const out: SearchsetBundle<unknown>['link'] = [
    { relation: 'self', url: withQuery(url, pairs, query._cursor as string | undefined) },
  ];
  const last = page.data.at(-1);
  if (page.hasMore && last !== undefined) {
    out.push({ relation: 'next', url: withQuery(url, pairs, toFhirId(last.id)) });
  }
  return out;
}

/**
 * How many ignored parameters the warning names one by one. A form body of 1 MiB can hold
 * 80,000 names; one issue each made a 16 MB answer from it (docs/design.md#validation-cost),
 * so past this many the rest are counted in one issue.
 */
export const NAMED_IGNORED_LIMIT = 20;

/** The warning entry naming the ignored parameters, or `undefined` when none were. */
function outcomeEntry(ignored: readonly string[]): OutcomeEntry | undefined {
  if (ignored.length === 0) return undefined;
  const issue: OperationOutcome['issue'] = ignored.slice(0, NAMED_IGNORED_LIMIT).map((name) => ({
    severity: 'warning' as const,
    code: 'not-supported' as const,
    diagnostics: `The search parameter ${name.slice(0, 100)} is not supported here and was ignored (send Prefer: handling=strict to have it refused).`,
    expression: [name.slice(0, 100)],
  }));
  const more = ignored.length - issue.length;
  if (more > 0) {
    issue.push({
      severity: 'warning' as const,
      code: 'not-supported' as const,
      diagnostics: `${more} more search parameters are not supported here and were ignored (send Prefer: handling=strict to have them refused).`,
    });
  }
  return { resource: { resourceType: 'OperationOutcome', issue }, search: { mode: 'outcome' } };
}

/**
 * The Bundle of a page of stored records.
 *
 * @example searchset('Appointment', request.query, page, appointmentToFhir)
 */
export function searchset<S extends { id: string }, R>(
  type: string,
  query: SearchQuery,
  page: CountedPage<S>,
  toFhir: (stored: S) => R,
  countOnly = false,
): SearchsetBundle<R> {
  const { base, ignored } = requestInfo(query);
  const bundle: SearchsetBundle<R> = {
    resourceType: 'Bundle',
    type: 'searchset',
    total: page.total,
    link: links(base, type, query, page),
  };
  const outcome = outcomeEntry(ignored);
  if (countOnly) {
    if (outcome !== undefined) bundle.entry = [outcome];
    return bundle;
  }
  const entry: SearchsetBundle<R>['entry'] = page.data.map((stored) => ({
    fullUrl: `${base}/${type}/${toFhirId(stored.id)}`,
    resource: toFhir(stored),
    search: { mode: 'match' as const },
  }));
  if (outcome !== undefined) entry.push(outcome);
  bundle.entry = entry;
  return bundle;
}

/**
 * The same Bundle as `searchset`, as JSON text spliced from rendered entries: `cache` keeps
 * each entry's whole text (its `fullUrl` too) by id, and serves it only for the same stored
 * text and base, so neither a changed record nor a change of base is ever served stale. Key
 * order and content match `JSON.stringify(searchset(…))`.
 */
export function searchsetText<S extends { id: string }, R>(
  type: string,
  query: SearchQuery,
  page: CountedPage<StoredJson>,
  toFhir: (stored: S) => R,
  cache: RenderCache,
  countOnly = false,
): JsonText<SearchsetBundle<R>> {
  const { base, ignored } = requestInfo(query);
  const head = `{"resourceType":"Bundle","type":"searchset","total":${page.total},"link":${JSON.stringify(links(base, type, query, page))}`;
  const outcome = outcomeEntry(ignored);
  if (countOnly && outcome === undefined) return `${head}}` as JsonText<SearchsetBundle<R>>;
  // Appended, not joined: V8 links the pieces and copies them once, when the socket writes
  // the text (two joins copied a page's 6 KB twice more).
  let text = `${head},"entry":[`;
  let first = true;
  if (!countOnly) {
    for (const row of page.data) {
      const entry = cache.get(row.id, row.json, base, () => {
        const match: MatchEntry<R> = {
          fullUrl: `${base}/${type}/${toFhirId(row.id)}`,
          resource: toFhir(JSON.parse(row.json) as S),
          search: { mode: 'match' },
        };
        return JSON.stringify(match);
      });
      text += first ? entry : `,${entry}`;
      first = false;
    }
  }
  if (outcome !== undefined) text += `${first ? '' : ','}${JSON.stringify(outcome)}`;
  return `${text}]}` as JsonText<SearchsetBundle<R>>;
}
