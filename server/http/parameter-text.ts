/**
 * Path, query and header parameters arrive as text; the spec says they are read "as their
 * schemas say" (spec/openapi.yaml, "Text and numbers"). This reads them before validation,
 * strictly, so Ajv then sees typed values and judges them without coercion of its own:
 * - integer: optional `-`, then decimal digits without leading zeros (`0x10`, `1e1`, ` 1`,
 *   `+1`, `01`, `1.0` stay text and fail as "must be an integer");
 * - boolean: `true` or `false`;
 * - object (`deepObject`, `created[gt]=1`): each member read by its own schema;
 * - array: a single value becomes a one-item list, each item read by `items`.
 * A repeated name (`limit=1&limit=2`) or an explicit list (`limit[]=1`) for a scalar stays a
 * list, which the schema then refuses (400 `parameter_invalid`). Ajv's own coercion is not
 * used because it reads text with `Number()`, which accepts all of the forms above.
 */
import type { Ajv } from 'ajv';
import { ajvSchemaLookup } from '../../contract/ajv.js';
import type { JsonSchema } from '../../contract/route-types.js';
import { followSchemaRef } from '../../contract/schema-refs.js';

/** Reads one text value as its schema says; returns the value unchanged when it cannot. */
type Reader = (value: unknown) => unknown;

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

const identity: Reader = (value) => value;

/** The schema a value is read by: `$ref`s followed, and a one-part `allOf` unwrapped (bounded). */
function resolve(ajv: Ajv, schema: JsonSchema): JsonSchema {
  const lookup = ajvSchemaLookup(ajv);
  let current = followSchemaRef(schema, lookup);
  for (
    let depth = 0;
    depth < 16 && Array.isArray(current.allOf) && current.allOf.length === 1;
    depth++
  ) {
    current = followSchemaRef(current.allOf[0] as JsonSchema, lookup);
  }
  return current;
}

function types(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  return schema.properties !== undefined ? ['object'] : [];
}

// -0 is read as 0: no client means "minus zero", and databases disagree on storing it.
const toNumber = (text: string): number => Number(text) || 0;

function scalarReader(kinds: readonly string[]): Reader {
  const integer = kinds.includes('integer');
  const number = kinds.includes('number');
  const boolean = kinds.includes('boolean');
  if (!integer && !number && !boolean) return identity;
  return (value) => {
    if (typeof value !== 'string') return value;
    if (integer && INTEGER.test(value)) return toNumber(value);
    if (number && NUMBER.test(value)) return toNumber(value);
    if (boolean && (value === 'true' || value === 'false')) return value === 'true';
    return value;
  };
}

/** The reader for values of `schema` (compiled once per route). */
function readerFor(ajv: Ajv, schema: JsonSchema): Reader {
  const node = resolve(ajv, schema);
  const kinds = types(node);
  if (kinds.includes('object') && node.properties !== undefined) {
    const members = objectReader(ajv, node);
    return (value) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) members(value);
      return value;
    };
  }
  if (kinds.includes('array')) {
    const item = node.items ? readerFor(ajv, node.items as JsonSchema) : identity;
    return (value) => (Array.isArray(value) ? value : [value]).map(item);
  }
  return scalarReader(kinds);
}

/** Reads each known member of an object of text values, in place. */
function objectReader(ajv: Ajv, schema: JsonSchema): (values: object) => void {
  const readers = new Map<string, Reader>();
  for (const [name, member] of Object.entries((schema.properties ?? {}) as object)) {
    const reader = readerFor(ajv, member as JsonSchema);
    if (reader !== identity) readers.set(name, reader);
  }
  return (values) => {
    const record = values as Record<string, unknown>;
    for (const [name, read] of readers) {
      if (Object.hasOwn(record, name)) record[name] = read(record[name]);
    }
  };
}

/**
 * The reader of one request part (`params`, `querystring`, `headers`): reads the parameters
 * `schema` lists, in place, and leaves the others for validation to report.
 */
export function compileParameterReader(ajv: Ajv, schema: JsonSchema): (values: unknown) => void {
  const read = objectReader(ajv, resolve(ajv, schema));
  return (values) => {
    if (values !== null && typeof values === 'object') read(values);
  };
}
