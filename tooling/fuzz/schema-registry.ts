/**
 * The spec's JSON Schemas as the fuzzer reads them: the route table's component schemas by
 * `$id`, `$ref` resolution, and Ajv validators — the oracle that decides whether a generated
 * value is valid or broken. Besides each schema, the oracle applies the spec's rules for all
 * text and numbers ("Text and numbers" in spec/openapi.yaml): strings and keys are Unicode
 * scalar values without NUL, no key is `__proto__`, integers lie within ±(2^53 − 1); and
 * parameters travel as text read strictly (`text-values.ts`). It is written from the spec,
 * not from the server's code, so a server that drifts from the spec is caught.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv } from '../../contract/ajv.js';
import type { JsonSchema } from '../../contract/route-types.js';
import { followSchemaRef } from '../../contract/schema-refs.js';
import { readText, textRulesHold } from './text-values.js';

/** A schema node; every keyword the converter reads is optional. */
export type Schema = JsonSchema;

/** Component schemas by `$id`, with one strict Ajv. */
export class SchemaRegistry {
  readonly #byId = new Map<string, Schema>();
  readonly #strict: Ajv;
  readonly #cache = new WeakMap<object, ValidateFunction>();

  constructor(components: readonly Schema[]) {
    // The model's Ajv (its formats, `int64` as a safe integer), stopping at the first error:
    // the oracle only needs yes or no.
    this.#strict = createAjv({ strict: false, allErrors: false, schemas: components });
    for (const schema of components) this.#byId.set(String(schema.$id), schema);
  }

  /** Follows `$ref`s (by `$id`) until a schema without one. */
  resolve(schema: Schema): Schema {
    const target = followSchemaRef(schema, (id) => this.#byId.get(id));
    if (typeof target.$ref === 'string') throw new Error(`unresolvable $ref ${target.$ref}`);
    return target;
  }

  /** Whether `value` is valid for `schema` (strict types: a JSON body). */
  valid(schema: Schema, value: unknown): boolean {
    return this.#validator(this.#strict, this.#cache, schema)(value) && textRulesHold(value);
  }

  /**
   * Whether text values (query or path parameters as an object of strings) are valid for
   * `schema` once read as the types it names (`readText`).
   */
  validText(schema: Schema, value: unknown): boolean {
    return this.valid(
      schema,
      readText(schema, value, (s) => this.resolve(s)),
    );
  }

  #validator(ajv: Ajv, cache: WeakMap<object, ValidateFunction>, schema: Schema): ValidateFunction {
    let validate = cache.get(schema);
    if (validate === undefined) {
      // A component is already registered under its `$id`; compiling it again would clash.
      const registered = typeof schema.$id === 'string' ? ajv.getSchema(schema.$id) : undefined;
      validate = registered ?? ajv.compile(schema as object);
      cache.set(schema, validate);
    }
    return validate;
  }
}
