/**
 * A Schema Object with its `allOf` members merged (OpenAPI 3.0.3 §4.7.24, JSON Schema `allOf`):
 * the one place the model collects a schema's properties across `allOf`, which the pagination
 * reading (is a `200` a list envelope, where does the cursor go) and the breaking-change engine
 * (moving a property into a shared base schema is not remove + add) both read. Tolerant: `$ref`s
 * go through the model's `locate`, anything that is not an object has no properties.
 * @see https://spec.openapis.org/oas/v3.0.3#schema-object
 */
import { appendPointer } from '../../contract/pointer.js';
import { isObject, locate, type NodeAt } from './document.js';

/** A schema with `allOf` merged in: what a client actually has to send or read. */
export interface FlatSchema {
  /** Pointer of the schema itself (after following its `$ref`). */
  pointer: string;
  /** Keywords other than `properties`, `required` and `allOf`; the outer schema wins. */
  keywords: Record<string, unknown>;
  /** Each property with the pointer of the schema that declares it. */
  properties: Map<string, NodeAt>;
  required: Set<string>;
}

/**
 * Resolves `$ref` and merges `allOf` members: the schema's own keywords and properties win, and
 * of two members declaring one property the later wins. `stack` guards against `allOf` cycles.
 */
export function flattenSchema(doc: unknown, loc: NodeAt, stack = new Set<string>()): FlatSchema {
  const target = locate(doc, loc);
  const flat: FlatSchema = {
    pointer: target.pointer,
    keywords: {},
    properties: new Map(),
    required: new Set(),
  };
  const node = target.node;
  if (!isObject(node) || stack.has(target.pointer)) return flat;
  stack.add(target.pointer);
  if (Array.isArray(node.allOf)) {
    node.allOf.forEach((member, i) => {
      const part = flattenSchema(
        doc,
        { node: member, pointer: appendPointer(target.pointer, 'allOf', i) },
        stack,
      );
      for (const [k, v] of Object.entries(part.keywords)) {
        if (!(k in flat.keywords)) flat.keywords[k] = v;
      }
      for (const [name, prop] of part.properties) flat.properties.set(name, prop);
      for (const name of part.required) flat.required.add(name);
    });
  }
  stack.delete(target.pointer);
  for (const [k, v] of Object.entries(node)) {
    if (k === 'allOf' || k === 'properties' || k === 'required' || k === '$ref') continue;
    flat.keywords[k] = v;
  }
  if (isObject(node.properties)) {
    for (const [name, schema] of Object.entries(node.properties)) {
      flat.properties.set(name, {
        node: schema,
        pointer: appendPointer(target.pointer, 'properties', name),
      });
    }
  }
  if (Array.isArray(node.required)) {
    for (const name of node.required) if (typeof name === 'string') flat.required.add(name);
  }
  return flat;
}
