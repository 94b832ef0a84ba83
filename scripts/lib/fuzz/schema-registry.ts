/**
 * The spec's JSON Schemas as the fuzzer reads them: the route table's component schemas by
 * `$id`, `$ref` resolution, and Ajv validators (the oracle that decides whether a generated
 * value is valid or broken, exactly as the server's own Ajv would).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from '../../../contract/route-types.js';

type FormatsPlugin = (ajv: Ajv) => Ajv;
const formatsModule = addFormatsModule as unknown as FormatsPlugin & { default?: FormatsPlugin };
const addFormats: FormatsPlugin = formatsModule.default ?? formatsModule;

/** A schema node; every keyword the converter reads is optional. */
export type Schema = JsonSchema;

/** Component schemas by `$id`, with one strict and one query-coercing Ajv. */
export class SchemaRegistry {
  readonly #byId = new Map<string, Schema>();
  readonly #strict: Ajv;
  readonly #coercing: Ajv;
  readonly #cache = new WeakMap<object, ValidateFunction>();
  readonly #coercingCache = new WeakMap<object, ValidateFunction>();

  constructor(components: readonly Schema[]) {
    // Same options as the test response checker: the formats of ajv-formats, unions allowed.
    this.#strict = new Ajv({ allErrors: false, strict: false, allowUnionTypes: true });
    // Query strings and path segments are text; OpenAPI's form style means "the text of a value
    // of the schema", which is what Ajv's scalar coercion decides.
    this.#coercing = new Ajv({ strict: false, allowUnionTypes: true, coerceTypes: true });
    for (const ajv of [this.#strict, this.#coercing]) addFormats(ajv);
    for (const schema of components) {
      this.#byId.set(String(schema.$id), schema);
      this.#strict.addSchema(schema as object);
      this.#coercing.addSchema(schema as object);
    }
  }

  /** Follows `$ref`s (by `$id`) until a schema without one. */
  resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; typeof current.$ref === 'string'; hops++) {
      const next = this.#byId.get(current.$ref);
      if (next === undefined || hops > 20) throw new Error(`unresolvable $ref ${current.$ref}`);
      current = next;
    }
    return current;
  }

  /** Whether `value` is valid for `schema` (strict types: a JSON body). */
  valid(schema: Schema, value: unknown): boolean {
    return this.#validator(this.#strict, this.#cache, schema)(value);
  }

  /**
   * Whether text values (query or path parameters as an object of strings) are valid for
   * `schema` once read as the types it names. Works on a copy: Ajv coerces in place.
   */
  validText(schema: Schema, value: unknown): boolean {
    const copy = structuredClone(value);
    return this.#validator(this.#coercing, this.#coercingCache, schema)(copy);
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
