/**
 * Pagination, read once into the operation model so the client generator (and any other
 * emitter) reads it there instead of walking schemas again: an operation is a list when its
 * `200` JSON response is a list envelope (an object with `has_more` and an array `data`, the
 * spec's "Pagination" section), and its next-page cursor is a forward cursor parameter in the
 * query, else a property of the JSON request body.
 * @see https://spec.openapis.org/oas/v3.0.3#response-object
 * @see https://spec.openapis.org/oas/v3.0.3#schema-object (`allOf`)
 */
import { tryResolveRef } from './document.js';
import { flattenSchema } from './flatten-schema.js';
import { isJsonMediaType, type MediaModel } from './media.js';

/** Where the next page's cursor goes. */
export interface CursorModel {
  in: 'query' | 'body';
  name: string;
}

/** A list operation; `cursor` when the client can page forward by itself. */
export interface PaginationModel {
  cursor?: CursorModel;
}

/** Forward cursor parameters, by preference: Stripe-style, then the common `after`. */
const CURSOR_NAMES = ['starting_after', 'after'];

type Json = Record<string, unknown>;

/** What `readPagination` reads of an operation, already resolved by the model. */
export interface PaginationSource {
  queryNames: readonly string[];
  requestContent: readonly MediaModel[];
  responses: readonly { status: string; content: readonly MediaModel[] }[];
}

/**
 * The operation's pagination, or `null` when it is not a list.
 *
 * @example readPagination(doc, { queryNames: ['limit', 'starting_after'], ... }) // { cursor: { in: 'query', name: 'starting_after' } }
 */
export function readPagination(
  document: unknown,
  source: PaginationSource,
): PaginationModel | null {
  const ok = source.responses.find((response) => response.status === '200');
  const schema = jsonSchemaOf(document, ok?.content ?? []);
  if (!schema) return null;
  const { properties } = flattenSchema(document, { node: schema, pointer: '' });
  const data = tryResolveRef(document, properties.get('data')?.node);
  const list = properties.has('has_more') && (data?.type === 'array' || data?.items !== undefined);
  if (!list) return null;
  const cursor = findCursor(document, source);
  return cursor ? { cursor } : {};
}

function findCursor(document: unknown, source: PaginationSource): CursorModel | undefined {
  const query = new Set(source.queryNames);
  const inQuery = CURSOR_NAMES.find((name) => query.has(name));
  if (inQuery) return { in: 'query', name: inQuery };
  const body = jsonSchemaOf(document, source.requestContent);
  if (!body) return undefined;
  const { properties } = flattenSchema(document, { node: body, pointer: '' });
  const inBody = CURSOR_NAMES.find((name) => properties.has(name));
  return inBody ? { in: 'body', name: inBody } : undefined;
}

/** The schema of the first JSON media type (`application/json`, `…+json`) in code-unit order. */
function jsonSchemaOf(document: unknown, content: readonly MediaModel[]): Json | undefined {
  const media = content
    .filter((entry) => isJsonMediaType(entry.mediaType))
    .sort((a, b) => (a.mediaType < b.mediaType ? -1 : a.mediaType > b.mediaType ? 1 : 0))[0];
  return media ? tryResolveRef(document, media.schema) : undefined;
}
