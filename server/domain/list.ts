/**
 * List envelopes (docs/design.md#lists): turns a list operation's query into the shared pagination
 * parameters and a page into `{object: "list", url, has_more, data}`. Used by every list
 * handler so they page alike.
 */
import type { JsonText } from '../../contract/route-types.js';
import type { ListParams, Page } from '../repos/pagination.js';
import type { StoredJson } from '../repos/rows.js';
import type { CreatedRange } from '../sql/criteria.js';

/** The list parameters every list operation's query shares, as the spec names them. */
export interface ListQuery {
  readonly limit?: number;
  readonly starting_after?: string;
  readonly ending_before?: string;
  readonly created?: CreatedRange;
}

/** The list object of the spec. */
export interface ListEnvelope<T, Url extends string> {
  object: 'list';
  url: Url;
  has_more: boolean;
  data: T[];
}

/**
 * The repositories' `ListParams` for a validated query. Both cursors at once is rejected by
 * the HTTP layer before handlers run, so only the present parts are copied here.
 *
 * @example listParams({ limit: 5, starting_after: 'pat_…' }) // { limit: 5, startingAfter: 'pat_…' }
 */
export function listParams(query: ListQuery | undefined): ListParams {
  const out: ListParams = {};
  if (query === undefined) return out;
  if (query.limit !== undefined) out.limit = query.limit;
  if (query.starting_after !== undefined) out.startingAfter = query.starting_after;
  if (query.ending_before !== undefined) out.endingBefore = query.ending_before;
  if (query.created !== undefined) out.created = { ...query.created };
  return out;
}

/**
 * The list object for one page, `url` being the list's path without a query string (the spec
 * fixes it per list, e.g. `/v1/patients`).
 */
export function listEnvelope<T, Url extends string>(url: Url, page: Page<T>): ListEnvelope<T, Url> {
  return { object: 'list', url, has_more: page.hasMore, data: page.data };
}

/**
 * The same list object as `listEnvelope`, as JSON text spliced from the stored documents'
 * own JSON: the page is sent without parsing each document and serialising it again. Key
 * order and content match `JSON.stringify(listEnvelope(url, page))` for the parsed page.
 *
 * @example listEnvelopeText('/v1/patients', { data: [{ id, json }], hasMore: false })
 */
export function listEnvelopeText<T, Url extends string>(
  url: Url,
  page: Page<StoredJson>,
): JsonText<ListEnvelope<T, Url>> {
  const data = page.data.map((item) => item.json).join(',');
  const text = `{"object":"list","url":${JSON.stringify(url)},"has_more":${page.hasMore},"data":[${data}]}`;
  return text as JsonText<ListEnvelope<T, Url>>;
}
