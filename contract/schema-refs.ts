/**
 * The one `$ref` follower for converted JSON Schemas (the route table's schemas, whose `$ref`s
 * name a component schema's `$id`): the server's body and parameter readers and the fuzzer's
 * oracle look a schema up through it. Raw OpenAPI documents have their own follower
 * (`tooling/openapi/document.ts`), since there a `$ref` is a JSON Pointer into the document.
 */
import type { JsonSchema } from './route-types.js';

/** Finds a registered schema by the `$ref` that names it (an Ajv instance, a map by `$id`). */
export type SchemaLookup = (ref: string) => JsonSchema | undefined;

/**
 * Follows `$ref`s until a schema without one, a `$ref` the lookup does not know, or a cycle;
 * returns the last schema reached (so a caller can tell "unresolved" by its `$ref`).
 *
 * @example followSchemaRef({ $ref: 'Patient' }, (id) => byId.get(id)) // the Patient schema
 */
export function followSchemaRef(schema: JsonSchema, lookup: SchemaLookup): JsonSchema {
  let current = schema;
  const seen = new Set<string>();
  while (typeof current.$ref === 'string' && !seen.has(current.$ref)) {
    seen.add(current.$ref);
    const target = lookup(current.$ref);
    if (target === undefined) return current;
    current = target;
  }
  return current;
}
