import { getAtPointer } from '../openapi/pointer.js';
import { isObject } from './objects.js';
import type { Located, OpenApiDocument } from './types.js';

/**
 * Follows a chain of local `$ref`s (`#/components/...`) to the node they name. The returned
 * pointer is the target's, so a change inside a shared component is reported where it was made.
 * A ref loop (`A → B → A`) or a dangling ref stops at the last node reached.
 */
export function deref(doc: OpenApiDocument, loc: Located): Located {
  let current = loc;
  const seen = new Set<string>();
  while (isObject(current.node) && typeof current.node.$ref === 'string') {
    const ref = current.node.$ref;
    if (!ref.startsWith('#') || seen.has(ref)) break;
    seen.add(ref);
    const target = getAtPointer(doc, ref);
    if (target === undefined) break;
    current = { node: target, ptr: decoded(ref.slice(1)) };
  }
  return current;
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
