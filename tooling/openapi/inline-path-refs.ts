/**
 * `$ref`s that point into `paths` (a schema written inline in one operation and reused by
 * pointer elsewhere, as some bundlers and hand-written documents do) replaced by a copy of what
 * they point at. openapi-typescript turns such a reference into an indexed type through
 * `paths[...]` that names the wrong level (`...['schema']`), so its output fails tsc; components
 * references are left alone. A reference that reaches itself again becomes `{}` (any value).
 */
import { getAtPointer } from '../../contract/pointer.js';

const INTO_PATHS = '#/paths/';

/**
 * Rewrites `document` in place and returns how many references were inlined.
 *
 * @example inlinePathReferences(doc) // 2
 */
export function inlinePathReferences(document: unknown): number {
  let count = 0;
  const visit = (node: unknown, active: Set<string>, isNameMap = false): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) node[i] = visit(node[i], active);
      return node;
    }
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string' && ref.startsWith(INTO_PATHS)) {
      const target = getAtPointer(document, ref);
      if (target === undefined) return node;
      count += 1;
      if (active.has(ref)) return {};
      active.add(ref);
      const copy = visit(structuredClone(target), active);
      active.delete(ref);
      return copy;
    }
    for (const key of Object.keys(record)) {
      // Examples and extensions are data: a `$ref` key inside them is not a reference. Under
      // `properties` (and other maps of names) the keys are names, so nothing is skipped.
      const data = key === 'example' || key === 'examples' || key.startsWith('x-');
      if (data && !isNameMap) continue;
      record[key] = visit(record[key], active, key === 'properties' && !isNameMap);
    }
    return record;
  };
  visit(document, new Set());
  return count;
}
