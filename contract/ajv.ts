/**
 * The one Ajv factory: every validator of converted schemas (the server's request validation,
 * the generator tests, the spec gate, the fuzzer's oracle and response checker) is built here, with the project's formats and
 * the component schemas of a route table registered.
 */
import { Ajv, type Options } from 'ajv';
import { addFormats } from './formats.js';
import type { JsonSchema } from './route-types.js';
import type { SchemaLookup } from './schema-refs.js';

export interface AjvOptions {
  /** Report every error (the default) or stop at the first, for a yes/no oracle. */
  allErrors?: boolean;
  /** Coerce strings to the schema's types (`'array'` also wraps scalars), as for query strings. */
  coerceTypes?: Options['coerceTypes'];
  /** Fill in `default`s. */
  useDefaults?: boolean;
  /**
   * Ajv's strict mode. Converted schemas use only draft-07 keywords and known formats, so they
   * pass it (the generator tests prove so); validators at run time turn it off to accept a
   * hand-written schema's extra keywords.
   */
  strict?: boolean;
  /** Build Ajv's own error messages; the server builds its own from the error objects. */
  messages?: boolean;
  /** Schemas to register with `addSchema` (component schemas with their `$id`s). */
  schemas?: readonly JsonSchema[];
  /** Put the failing schema on each error (`parentSchema`), for messages built from it. */
  verbose?: boolean;
}

/**
 * Looks a registered schema up in `ajv` by the `$ref` that names it, for `followSchemaRef`.
 *
 * @example followSchemaRef(schema, ajvSchemaLookup(ajv))
 */
export function ajvSchemaLookup(ajv: Ajv): SchemaLookup {
  return (ref) => {
    const target = ajv.getSchema(ref)?.schema;
    return target !== null && typeof target === 'object' ? (target as JsonSchema) : undefined;
  };
}

/**
 * A new Ajv instance for converted schemas: all errors, union types allowed, formats added.
 *
 * @example createAjv({ schemas: componentSchemas }).compile(routes[0].schemas.body)
 */
export function createAjv(options: AjvOptions = {}): Ajv {
  const ajv = new Ajv({
    allErrors: options.allErrors ?? true,
    allowUnionTypes: true,
    strict: options.strict ?? true,
    messages: options.messages ?? true,
    coerceTypes: options.coerceTypes ?? false,
    useDefaults: options.useDefaults ?? false,
    verbose: options.verbose ?? false,
  });
  addFormats(ajv);
  for (const schema of options.schemas ?? []) ajv.addSchema(schema as object);
  return ajv;
}
