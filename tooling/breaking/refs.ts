import { followRef } from '../openapi/document.js';
import { isObject } from './objects.js';
import type { Located, OpenApiDocument } from './types.js';

/**
 * Follows a chain of local `$ref`s (`#/components/...`) to the node they name. The returned
 * pointer is the target's, so a change inside a shared component is reported where it was made.
 * A ref loop (`A → B → A`) or a dangling ref stops at the last node reached.
 */
export function deref(doc: OpenApiDocument, loc: Located): Located {
  // '' marks "no `$ref` followed": a followed one's pointer is the `$ref` itself (`#/…`).
  const target = followRef(doc, loc.node, '');
  if (target.pointer === '') return loc;
  return { node: target.node, ptr: decoded(target.pointer.slice(1)) };
}

/** Name a `$ref` points at (its last segment), used to pair `oneOf` variants across versions. */
export function refName(node: unknown): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  return node.$ref.split('/').pop();
}

/** The pointer as reported: percent-decoded (`%7Bid%7D` → `{id}`) when that is valid. */
function decoded(ptr: string): string {
  try {
    return decodeURIComponent(ptr);
  } catch {
    return ptr;
  }
}
