/**
 * Cursor pagination over list envelopes (docs/design.md#lists): `{ object: 'list', has_more, data
 * }`, newest first. The next page starts after the last id of this one; with `ending_before` in the
 * query the walk goes the other way, each page ending before the first id of the previous one.
 */
import { ApiError } from './errors.js';
import type { CursorSpec } from './types.js';

type Init = {
  params?: { query?: Record<string, unknown> } & Record<string, unknown>;
  body?: unknown;
} & Record<string, unknown>;

type PageResult = { data?: unknown; error?: unknown; status: number; response: Response };

/**
 * Yields every item of every page, calling `call` once per page. Throws `ApiError` for a page
 * that failed, and `TypeError` when a page is not a list envelope with string ids (the operation
 * table and the server disagree).
 */
export async function* paginate(
  call: (init: Init) => Promise<PageResult>,
  cursor: CursorSpec,
  init: Init = {},
): AsyncGenerator<unknown, void, undefined> {
  const backward = cursor.in === 'query' && init.params?.query?.ending_before != null;
  const name = backward ? 'ending_before' : cursor.name;
  let next: string | undefined;
  for (;;) {
    const result = await call(next === undefined ? init : withCursor(init, cursor.in, name, next));
    if (result.error !== undefined || !result.response.ok) {
      throw new ApiError(result.status, result.error, result.response);
    }
    const page = result.data as { has_more?: unknown; data?: unknown } | undefined;
    if (!page || !Array.isArray(page.data) || typeof page.has_more !== 'boolean') {
      throw new TypeError('list response is not a list envelope (has_more, data)');
    }
    yield* page.data;
    if (!page.has_more || page.data.length === 0) return;
    const edge: unknown = backward ? page.data[0] : page.data[page.data.length - 1];
    const id = (edge as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') throw new TypeError('list item has no string id to page from');
    next = id;
  }
}

/** A copy of `init` with the cursor set in the query or the JSON body; `init` is not changed. */
function withCursor(init: Init, where: CursorSpec['in'], name: string, value: string): Init {
  if (where === 'body') {
    const body = typeof init.body === 'object' && init.body !== null ? init.body : {};
    return { ...init, body: { ...body, [name]: value } };
  }
  const params = init.params ?? {};
  return { ...init, params: { ...params, query: { ...params.query, [name]: value } } };
}
