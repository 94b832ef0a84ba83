/**
 * The model's tolerant reader: operations as the breaking-change engine compares them. A base
 * revision from git may no longer lint and a head may be half edited, yet both must be diffed,
 * so where the strict `listOperations` refuses a node with a `DocumentError`, this reader hands
 * over what is there: an operation that is not an object is absent, a `parameters` that is not
 * an array holds none, a `$ref` that cannot be followed (external, dangling, a cycle) is kept at
 * the reference's own pointer. It shares the strict reader's walk (`pathItemOperations`,
 * `pairOperations`), its parameter key (`parameterKey`: header names case-insensitive) and the
 * one `$ref` follower (`followRef`), so both readers see the same operations and parameters.
 *
 * Every node comes with its pointer: after a `$ref`, the target's, so a change inside a shared
 * component is reported where it was made.
 */
import { appendPointer } from '../../contract/pointer.js';
import { followRef } from './document.js';
import {
  type LowerMethod,
  type OperationPair,
  pairOperations,
  parameterKey,
  pathItemOperations,
} from './operations.js';

/** A node of a document and its JSON pointer (percent-decoded, as changes are reported). */
export interface NodeAt {
  node: unknown;
  pointer: string;
}

/** A map entry (a status under `responses`, a name under `headers`), read tolerantly. */
export interface TolerantEntry {
  /** Pointer of the entry as written, before any `$ref` is followed. */
  at: string;
  /** The entry's object, its `$ref`s followed. */
  resolved: NodeAt;
}

/** A Response Object under one status key. */
export interface TolerantResponse extends TolerantEntry {
  /** Header Objects by lower-cased name (HTTP header names are case-insensitive, as in
   * `parameterKey`), in document order; none when `headers` is not an object. */
  headers: Map<string, TolerantEntry>;
}

/** One Operation Object of a Path Item, read tolerantly. */
export interface TolerantOperation {
  method: LowerMethod;
  node: Record<string, unknown>;
  pointer: string;
  /** Path-level and operation-level parameters, the operation's winning on the same key
   * (§4.7.9), keyed by `parameterKey`, each resolved. */
  parameters: Map<string, NodeAt>;
  /** The Request Body Object, resolved; `node` is not an object when there is none. */
  requestBody: NodeAt;
  /** Responses by status key, in document order; none when `responses` is not an object. */
  responses: Map<string, TolerantResponse>;
}

/**
 * Follows a chain of internal `$ref`s to the node they name (through `followRef`). A ref loop
 * (`A → B → A`), an external or a dangling ref stops at the last node reached.
 */
export function locate(document: unknown, at: NodeAt): NodeAt {
  // '' marks "no `$ref` followed": a followed one's pointer is the `$ref` itself (`#/…`).
  const target = followRef(document, at.node, '');
  if (target.pointer === '') return at;
  return { node: target.node, pointer: decoded(target.pointer.slice(1)) };
}

/**
 * The operations of a Path Item (its `$ref` followed), each with its parameters merged and its
 * request body and responses resolved. Whatever is not an object (a `null` operation, a Path
 * Item that is a string) counts as absent.
 */
export function readPathItemTolerant(document: unknown, item: NodeAt): TolerantOperation[] {
  const resolved = locate(document, item);
  const out: TolerantOperation[] = [];
  for (const { method, node, pointer } of pathItemOperations(resolved.node, resolved.pointer)) {
    if (!isObject(node)) continue;
    out.push({
      method,
      node,
      pointer,
      parameters: mergedParameters(document, resolved, { node, pointer }),
      requestBody: locate(document, {
        node: node.requestBody,
        pointer: appendPointer(pointer, 'requestBody'),
      }),
      responses: responses(document, node.responses, appendPointer(pointer, 'responses')),
    });
  }
  return out;
}

/** Two revisions of a Path Item, their operations paired by method (`pairOperations`). */
export function pairPathItemsTolerant(
  base: { document: unknown; item: NodeAt },
  head: { document: unknown; item: NodeAt },
): OperationPair<TolerantOperation>[] {
  return pairOperations(
    readPathItemTolerant(base.document, base.item),
    readPathItemTolerant(head.document, head.item),
  );
}

function mergedParameters(document: unknown, item: NodeAt, op: NodeAt): Map<string, NodeAt> {
  const out = new Map<string, NodeAt>();
  for (const owner of [item, op]) {
    const list = isObject(owner.node) ? owner.node.parameters : undefined;
    if (!Array.isArray(list)) continue;
    list.forEach((node, i) => {
      const at = locate(document, { node, pointer: appendPointer(owner.pointer, 'parameters', i) });
      const p = isObject(at.node) ? at.node : {};
      out.set(parameterKey(p.in, p.name), at);
    });
  }
  return out;
}

function responses(document: unknown, raw: unknown, pointer: string) {
  const out = new Map<string, TolerantResponse>();
  for (const [status, entry] of entries(document, raw, pointer)) {
    const { node, pointer: at } = entry.resolved;
    const headers = isObject(node) ? node.headers : undefined;
    const byName = new Map<string, TolerantEntry>();
    for (const [name, header] of entries(document, headers, appendPointer(at, 'headers'))) {
      byName.set(name.toLowerCase(), header);
    }
    out.set(status, { ...entry, headers: byName });
  }
  return out;
}

/** The entries of a map object, each resolved; none when `raw` is not an object. */
function entries(document: unknown, raw: unknown, pointer: string): [string, TolerantEntry][] {
  if (!isObject(raw)) return [];
  return Object.entries(raw).map(([key, node]) => {
    const at = appendPointer(pointer, key);
    return [key, { at, resolved: locate(document, { node, pointer: at }) }];
  });
}

/** Narrows unknown data to a plain object (not an array): what the reader treats as present. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The pointer as reported: percent-decoded (`%7Bid%7D` → `{id}`) when that is valid. */
function decoded(pointer: string): string {
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}
