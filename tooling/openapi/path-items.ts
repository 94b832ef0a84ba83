/**
 * The model's one reader of Path Items (OpenAPI 3.0.3 §4.7.9), strict or tolerant, and the
 * pairing of two revisions for the breaking-change engine.
 *
 * `readPathItem` hands over each Operation Object of a Path Item with its parameters merged
 * (path-level and operation-level, the operation's winning on the same `parameterKey`), its
 * request body and responses resolved through `$ref`s, their media types and response headers,
 * every node with its pointer (after a `$ref`, the target's). One option sets how it meets a
 * node it cannot use (docs/design.md#toolchain):
 * - `strict` (`listOperations`: the generators, the route table, the spec gate's replay, the
 *   fuzzer): a `DocumentError` naming the node, since what is generated must be what the
 *   document says;
 * - tolerant (the breaking-change engine): absent or kept as written, never an error, since a
 *   base revision from git may no longer lint and a head may be half edited, and both are
 *   compared. An operation that is not an object is absent, a `parameters` that is not an array
 *   holds none, a `$ref` that cannot be followed is kept at the reference's own pointer.
 *
 * Response headers are read tolerantly in both modes, on first use: nothing generated reads them.
 */

import { HTTP_METHODS, type LowerMethod } from '../../contract/openapi-document.js';
import { appendPointer } from '../../contract/pointer.js';
import type { ParameterLocation } from '../../contract/route-types.js';
import { isObject, locate, type NodeAt, resolveRef } from './document.js';
import { DocumentError } from './errors.js';
import { type MediaAt, readContent } from './media.js';

export interface ReadOptions {
  /** Refuse what the model cannot use with a `DocumentError` (see the module comment). */
  strict: boolean;
}

/** A map entry (a status under `responses`, a name under `headers`). */
export interface EntryAt {
  /** Pointer of the entry as written, before any `$ref` is followed. */
  at: string;
  /** The entry's object, its `$ref`s followed. */
  resolved: NodeAt;
}

/** A Response Object under one status key. */
export interface ResponseAt extends EntryAt {
  /** Header Objects by lower-cased name (HTTP header names are case-insensitive, as in
   * `parameterKey`), in document order; none when `headers` is not an object. */
  headers: Map<string, EntryAt>;
  /** Its media types by name, in document order. */
  content: Map<string, MediaAt>;
}

/** A Request Body Object, resolved; `node` is `undefined` when the operation has none. */
export interface RequestBodyAt extends NodeAt {
  /** Its media types by name, in document order; none when it has no `content` object. */
  content: Map<string, MediaAt>;
}

/** One Operation Object of a Path Item, as `readPathItem` hands it over. */
export interface OperationAt {
  method: LowerMethod;
  node: Record<string, unknown>;
  pointer: string;
  /** Path-level and operation-level parameters, the operation's winning on the same key
   * (§4.7.9), keyed by `parameterKey`, each resolved: the path's not overridden first. */
  parameters: Map<string, NodeAt>;
  requestBody: RequestBodyAt;
  /** Responses by status key, in document order, extensions (`x-…`) left out; none when
   * `responses` is not an object (tolerant) or absent. */
  responses: Map<string, ResponseAt>;
}

/**
 * The operations of a Path Item, its `$ref` followed. `item.pointer` sets the form of every
 * pointer handed back (`#/paths/…` or `/paths/…`, see `locate`).
 *
 * @example readPathItem(doc, { node: doc.paths['/v1/patients'], pointer: '#/paths/~1v1~1patients' }, { strict: true })
 */
export function readPathItem(
  document: unknown,
  item: NodeAt,
  { strict }: ReadOptions,
): OperationAt[] {
  if (strict && !isObject(item.node)) {
    throw new DocumentError(item.pointer, 'A Path Item must be an object.');
  }
  const reader = new Reader(document, strict);
  const resolved = reader.resolve(item);
  const shared = reader.parameters(resolved.node, resolved.pointer);
  const out: OperationAt[] = [];
  for (const { method, node, pointer } of pathItemOperations(resolved.node, resolved.pointer)) {
    if (!isObject(node)) {
      if (strict) throw new DocumentError(pointer, 'An Operation must be an object.');
      continue;
    }
    const own = reader.parameters(node, pointer);
    const parameters = new Map([...shared].filter(([key]) => !own.has(key)));
    for (const [key, parameter] of own) parameters.set(key, parameter);
    out.push({
      method,
      node,
      pointer,
      parameters,
      requestBody: reader.requestBody(node.requestBody, appendPointer(pointer, 'requestBody')),
      responses: reader.responses(node.responses, appendPointer(pointer, 'responses')),
    });
  }
  return out;
}

const LOCATIONS: readonly unknown[] = [
  'path',
  'query',
  'header',
  'cookie',
] satisfies readonly ParameterLocation[];

/** One reading's way with nodes: `resolve` is `resolveRef` when strict, `locate` when not. */
class Reader {
  readonly document: unknown;
  readonly strict: boolean;

  constructor(document: unknown, strict: boolean) {
    this.document = document;
    this.strict = strict;
  }

  resolve(at: NodeAt): NodeAt {
    return this.strict ? resolveRef(this.document, at.node, at.pointer) : locate(this.document, at);
  }

  /** The `parameters` of a Path Item or an operation, keyed by `parameterKey`. */
  parameters(owner: unknown, ownerPointer: string): Map<string, NodeAt> {
    const out = new Map<string, NodeAt>();
    const list = isObject(owner) ? owner.parameters : undefined;
    const pointer = appendPointer(ownerPointer, 'parameters');
    if (!Array.isArray(list)) {
      if (this.strict && list !== undefined)
        throw new DocumentError(pointer, '`parameters` must be an array.');
      return out;
    }
    list.forEach((node, index) => {
      const at = this.resolve({ node, pointer: appendPointer(pointer, index) });
      const p = isObject(at.node) ? at.node : {};
      if (this.strict && !LOCATIONS.includes(p.in)) {
        throw new DocumentError(
          appendPointer(at.pointer, 'in'),
          `Unknown parameter location ${JSON.stringify(p.in)}.`,
        );
      }
      if (this.strict && typeof p.name !== 'string')
        throw new DocumentError(appendPointer(at.pointer, 'name'), 'A parameter needs a name.');
      out.set(parameterKey(p.in, p.name), at);
    });
    return out;
  }

  requestBody(node: unknown, pointer: string): RequestBodyAt {
    const at = node === undefined ? { node, pointer } : this.resolve({ node, pointer });
    const content = isObject(at.node) ? at.node.content : undefined;
    return {
      ...at,
      content: readContent({ node: content, pointer: appendPointer(at.pointer, 'content') }),
    };
  }

  responses(raw: unknown, pointer: string): Map<string, ResponseAt> {
    const out = new Map<string, ResponseAt>();
    if (raw === undefined) return out;
    if (!isObject(raw)) {
      if (this.strict) throw new DocumentError(pointer, '`responses` must be an object.');
      return out;
    }
    for (const [status, node] of Object.entries(raw)) {
      if (status.startsWith('x-')) continue;
      const at = appendPointer(pointer, status);
      const resolved = this.resolve({ node, pointer: at });
      const response = isObject(resolved.node) ? resolved.node : {};
      const content = {
        node: response.content,
        pointer: appendPointer(resolved.pointer, 'content'),
      };
      out.set(status, new LazyResponse(this.document, at, resolved, readContent(content)));
    }
    return out;
  }
}

/** A response whose headers are read on first use: strict reading (the generators) never
 * asks, and following every response's header `$ref`s would cost it a third of its time. */
class LazyResponse implements ResponseAt {
  readonly at: string;
  readonly resolved: NodeAt;
  readonly content: Map<string, MediaAt>;
  #document: unknown;
  #headers: Map<string, EntryAt> | undefined;

  constructor(document: unknown, at: string, resolved: NodeAt, content: Map<string, MediaAt>) {
    this.#document = document;
    this.at = at;
    this.resolved = resolved;
    this.content = content;
  }

  get headers(): Map<string, EntryAt> {
    if (this.#headers === undefined) {
      this.#headers = new Map();
      const raw = isObject(this.resolved.node) ? this.resolved.node.headers : undefined;
      const pointer = appendPointer(this.resolved.pointer, 'headers');
      for (const [name, header] of entries(this.#document, raw, pointer)) {
        this.#headers.set(name.toLowerCase(), header);
      }
    }
    return this.#headers;
  }
}

/** The entries of a map object, each located; none when `raw` is not an object. */
function entries(document: unknown, raw: unknown, pointer: string): [string, EntryAt][] {
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([key, node]) => {
    const at = appendPointer(pointer, key);
    return [key, { at, resolved: locate(document, { node, pointer: at }) }];
  });
}

/** One HTTP method key of a Path Item, as the document writes it. */
export interface OperationNode {
  method: LowerMethod;
  /** What the document holds under the method: an Operation Object when it is well formed. */
  node: unknown;
  /** `<path item pointer>/<method>`. */
  pointer: string;
}

/**
 * The one loop over a Path Item's HTTP methods (§4.7.9): every method key present, in
 * `HTTP_METHODS` order, whatever its value. Tolerant: a Path Item that is not an object has no
 * operations. Judging a value is the caller's business: `listOperations` refuses one that is not
 * an object, the breaking-change engine skips it (a base revision is compared, never refused).
 * `item` must already be resolved; `pointer` is where the caller says it sits.
 *
 * @example pathItemOperations({ get: {}, post: null }, '#/paths/~1a') // get at #/paths/~1a/get, post (null)
 */
export function pathItemOperations(item: unknown, pointer: string): OperationNode[] {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return [];
  const record = item as Record<string, unknown>;
  const found: OperationNode[] = [];
  for (const method of HTTP_METHODS) {
    if (!Object.hasOwn(record, method) || record[method] === undefined) continue;
    found.push({ method, node: record[method], pointer: appendPointer(pointer, method) });
  }
  return found;
}

/** The operations two revisions of a Path Item hold under one method; a side is absent when its item has none. */
export interface OperationPair<T extends { method: LowerMethod } = OperationNode> {
  method: LowerMethod;
  base?: T;
  head?: T;
}

/**
 * Pairs the operations of two revisions of a Path Item by method, in `HTTP_METHODS` order, for
 * comparing them: every method either side has, once.
 */
export function pairOperations<T extends { method: LowerMethod }>(
  base: readonly T[],
  head: readonly T[],
): OperationPair<T>[] {
  const pairs: OperationPair<T>[] = [];
  for (const method of HTTP_METHODS) {
    const b = base.find((op) => op.method === method);
    const h = head.find((op) => op.method === method);
    if (b || h) pairs.push({ method, ...(b && { base: b }), ...(h && { head: h }) });
  }
  return pairs;
}

/**
 * The identity of a parameter within an operation (§4.7.9: "a unique parameter is defined by a
 * combination of a name and location"), header names compared case-insensitively as HTTP does
 * (§4.7.12). The model's merge and the breaking-change engine's pairing both key by it.
 *
 * @example parameterKey('header', 'Idempotency-Key') // 'header:idempotency-key'
 */
export function parameterKey(location: unknown, name: unknown): string {
  const text = String(name);
  return `${String(location)}:${location === 'header' ? text.toLowerCase() : text}`;
}

/** Two revisions of a Path Item, read tolerantly, their operations paired by method. */
export function pairPathItems(
  base: { document: unknown; item: NodeAt },
  head: { document: unknown; item: NodeAt },
): OperationPair<OperationAt>[] {
  return pairOperations(
    readPathItem(base.document, base.item, { strict: false }),
    readPathItem(head.document, head.item, { strict: false }),
  );
}

/** One key of two revisions' maps (a path, a webhook event): a side is absent when its map
 * has no entry for it. Pointers are as the breaking-change engine reports them (`/paths/…`). */
export interface EntryPair {
  /** The base revision's key; the head's when only the head has it. */
  key: string;
  base?: NodeAt;
  /** The head's entry and its key (a path may be renamed: see `pairPaths`). */
  head?: NodeAt & { key: string };
}

/** `/v1/patients/{id}` and `/v1/patients/{patient}` are the same route to a client. */
function routeKey(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}

/**
 * The Paths Objects (§4.7.8) of two revisions paired: a base path with the head's path of the
 * same name, else the head's path of the same route (path parameters renamed), then the head's
 * paths no base path took, in document order.
 */
export function pairPaths(base: unknown, head: unknown): EntryPair[] {
  return pairEntries(base, head, 'paths', (h) => {
    const byRoute = new Map(Object.keys(h).map((p) => [routeKey(p), p]));
    return (path) => (path in h ? path : byRoute.get(routeKey(path)));
  });
}

/**
 * The webhooks of two revisions paired by event name: `x-webhooks` (OpenAPI 3.0, the
 * project's extension) or `webhooks` (OpenAPI 3.1). Each event is a Path Item.
 */
export function pairWebhooks(
  base: unknown,
  head: unknown,
  key: 'x-webhooks' | 'webhooks',
): EntryPair[] {
  return pairEntries(base, head, key, (h) => (name) => (name in h ? name : undefined));
}

function pairEntries(
  base: unknown,
  head: unknown,
  key: string,
  /** Given the head's map, which of its keys a base key pairs with. */
  matcher: (h: Record<string, unknown>) => (name: string) => string | undefined,
): EntryPair[] {
  const map = (doc: unknown) => {
    const value = isObject(doc) ? doc[key] : undefined;
    return isObject(value) ? value : {};
  };
  const b = map(base);
  const h = map(head);
  const match = matcher(h);
  const at = (name: string) => appendPointer(`/${key}`, name);
  const taken = new Set<string>();
  const pairs: EntryPair[] = [];
  for (const name of Object.keys(b)) {
    const headName = match(name);
    const pair: EntryPair = { key: name, base: { node: b[name], pointer: at(name) } };
    if (headName !== undefined) {
      taken.add(headName);
      pair.head = { key: headName, node: h[headName], pointer: at(headName) };
    }
    pairs.push(pair);
  }
  for (const name of Object.keys(h)) {
    if (!taken.has(name))
      pairs.push({ key: name, head: { key: name, node: h[name], pointer: at(name) } });
  }
  return pairs;
}
