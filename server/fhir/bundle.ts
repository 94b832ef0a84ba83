/**
 * Searchset Bundles (docs/design.md#fhir-r4): one page of matches, newest first, with a `self`
 * link and, when more match, a `next` link that repeats the search with `_cursor` set to the
 * last entry's id. URLs are relative to the FHIR base (`Patient?family=…`), which FHIR allows
 * and clients resolve against the base they called; the service never builds absolute URLs
 * from the `Host` header a client sends.
 */
import type { JsonText } from '../../contract/route-types.js';
import type { Page } from '../repos/pagination.js';
import type { StoredJson } from '../repos/rows.js';
import { toFhirId } from './ids.js';
import type { RenderCache } from './render-cache.js';

/** A search's query as received: parameter → value(s), already validated. */
export type SearchQuery = Readonly<Record<string, unknown>>;

interface Entry<R> {
  fullUrl: string;
  resource: R;
  search: { mode: 'match' };
}

/** The Bundle of one page: `resourceType`, `type`, `link`, `entry`. */
export interface SearchsetBundle<R> {
  resourceType: 'Bundle';
  type: 'searchset';
  link: { relation: 'self' | 'next'; url: string }[];
  entry: Entry<R>[];
}

/** The query string of `query` with `_cursor` replaced (parameters in a stable order). */
function queryText(query: SearchQuery, cursor: string | undefined): string {
  const params = new URLSearchParams();
  for (const name of Object.keys(query).sort()) {
    if (name === '_cursor') continue;
    const value = query[name];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  if (cursor !== undefined) params.append('_cursor', cursor);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The Bundle of a page of stored records.
 *
 * @example searchset('Patient', request.query, page, (p) => patientToFhir(p))
 */
export function searchset<S extends { id: string }, R>(
  type: string,
  query: SearchQuery,
  page: Page<S>,
  toFhir: (stored: S) => R,
): SearchsetBundle<R> {
  const link: SearchsetBundle<R>['link'] = [
    { relation: 'self', url: `${type}${queryText(query, query._cursor as string | undefined)}` },
  ];
  const last = page.data.at(-1);
  if (page.hasMore && last !== undefined) {
    link.push({ relation: 'next', url: `${type}${queryText(query, toFhirId(last.id))}` });
  }
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    link,
    entry: page.data.map((stored) => {
      const resource = toFhir(stored);
      return { fullUrl: `${type}/${toFhirId(stored.id)}`, resource, search: { mode: 'match' } };
    }),
  };
}

/**
 * The same Bundle as `searchset`, as JSON text spliced from rendered entries (`cache` keeps
 * them by stored text): key order and content match `JSON.stringify(searchset(…))`.
 */
export function searchsetText<S extends { id: string }, R>(
  type: string,
  query: SearchQuery,
  page: Page<StoredJson>,
  toFhir: (stored: S) => R,
  cache: RenderCache,
): JsonText<SearchsetBundle<R>> {
  const links: SearchsetBundle<R>['link'] = [
    { relation: 'self', url: `${type}${queryText(query, query._cursor as string | undefined)}` },
  ];
  const last = page.data.at(-1);
  if (page.hasMore && last !== undefined) {
    links.push({ relation: 'next', url: `${type}${queryText(query, toFhirId(last.id))}` });
  }
  const entries = page.data.map((row) =>
    cache.get(row.json, () => {
      const resource = toFhir(JSON.parse(row.json) as S);
      const entry: Entry<R> = {
        fullUrl: `${type}/${toFhirId(row.id)}`,
        resource,
        search: { mode: 'match' },
      };
      return JSON.stringify(entry);
    }),
  );
  const text = `{"resourceType":"Bundle","type":"searchset","link":${JSON.stringify(links)},"entry":[${entries.join(',')}]}`;
  return text as JsonText<SearchsetBundle<R>>;
}
