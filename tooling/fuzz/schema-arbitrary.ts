/**
 * JSON Schema (draft-07, as `tooling/openapi/json-schema.ts` emits it) → fast-check arbitrary of
 * valid values. Covers the keywords the spec uses: `$ref`, `type` (one or a list), `enum`,
 * `const`, `properties`/`required`/`additionalProperties`/`maxProperties`, `items` with
 * `minItems`/`maxItems`/`uniqueItems`, `minLength`/`maxLength`, `pattern` (fast-check's
 * `stringMatching`), `format` (see `formats.ts`), `minimum`/`maximum` (and exclusive forms),
 * `anyOf`/`oneOf`, `allOf`. Values are built to be valid; the caller filters through the Ajv
 * oracle for what generation cannot promise (a `oneOf` value matching two branches, a
 * `pattern` plus `maxLength`).
 *
 * No npm package does this for fast-check 4: `json-schema-fast-check` (0.0.6) targets
 * fast-check 1 and is unmaintained, so this is a compact one of our own.
 *
 * @example
 * fc.sample(arbitraryFor({ type: 'string', maxLength: 3 }, registry), 2) // ['a', '']
 */
import fc from 'fast-check';
import { formatArbitrary } from './formats.js';
import type { Schema, SchemaRegistry } from './schema-registry.js';

// Most generated containers stay small; boundaries are reached by the explicit edge cases.
const SMALL_ARRAY = 4;
const SMALL_OBJECT = 4;
const LONG_STRING = 40;

/**
 * Valid text that breaks naive code: bidirectional overrides and marks (RTL), zero-width and
 * joiner characters, a byte-order mark inside text, C0/C1 controls and DEL, line and paragraph
 * separators, noncharacters and the last code point. All are Unicode scalar values other than
 * NUL, so the spec accepts them and every database must return them as sent.
 */
export const HOSTILE_VALID_CHARACTERS: readonly string[] = [
  '\u202e', // RIGHT-TO-LEFT OVERRIDE
  '\u202d',
  '\u2066',
  '\u2069',
  '\u200f', // RIGHT-TO-LEFT MARK
  '\u061c',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\u0001',
  '\u0008',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u2028',
  '\u2029',
  '\ufffe',
  '\uffff',
  '\u{10ffff}',
  '\\',
  '"',
  "'",
];

const hostileUnit = fc.oneof(
  fc.constantFrom(...HOSTILE_VALID_CHARACTERS),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
);

/**
 * Strings of every kind of text: ASCII, any grapheme (emoji, combining marks), any code point,
 * and the hostile characters above.
 */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const typical = Math.min(maxLength, Math.max(minLength, LONG_STRING));
  const units = ['grapheme-ascii', 'grapheme', 'binary', hostileUnit] as const;
  return (
    fc
      .oneof(
        { arbitrary: fc.constantFrom(...units), weight: 1 },
        { arbitrary: fc.constant('grapheme-ascii' as const), weight: 2 },
      )
      .chain((unit) =>
        fc.oneof(
          { arbitrary: fc.string({ unit, minLength, maxLength: typical }), weight: 6 },
          // The exact upper boundary, in code points (what JSON Schema's maxLength counts).
          {
            arbitrary: fc.string({ unit: 'binary', minLength: maxLength, maxLength }),
            weight: Number.isFinite(maxLength) && maxLength < 5000 ? 1 : 0,
          },
        ),
      )
      // NUL is the one code point the spec refuses in text; broken values add it on purpose.
      .map((s) => s.replaceAll('\u0000', '\u0001'))
  );
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 200;
  const inLength = (s: string) => {
    const length = [...s].length;
    return length >= minLength && length <= maxLength;
  };
  if (typeof schema.format === 'string') {
    const byFormat = formatArbitrary(schema.format);
    if (byFormat !== undefined) return byFormat.filter(inLength);
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter(inLength);
  }
  return text(minLength, maxLength);
}

function numberBounds(schema: Schema, integer: boolean): { min: number; max: number } {
  const step = integer ? 1 : Number.EPSILON;
  let min = -Number.MAX_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER;
  if (typeof schema.minimum === 'number') min = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') min = schema.exclusiveMinimum + step;
  if (typeof schema.maximum === 'number') max = schema.maximum;
  if (typeof schema.exclusiveMaximum === 'number') max = schema.exclusiveMaximum - step;
  return { min, max };
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const { min, max } = numberBounds(schema, true);
  // Edges: both bounds (without a bound, ±(2^53 − 1), the largest exact integers) and zero.
  const edges = [min, max, ...(min <= 0 && max >= 0 ? [0] : [])];
  return fc.oneof(
    { arbitrary: fc.integer({ min, max }), weight: 8 },
    { arbitrary: fc.constantFrom(...edges), weight: 2 },
  );
}

function arrayArbitrary(schema: Schema, registry: SchemaRegistry): fc.Arbitrary<unknown[]> {
  const items = schema.items ? arbitraryFor(schema.items as Schema, registry) : fc.jsonValue();
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : SMALL_ARRAY;
  const maxLength = Math.max(minLength, Math.min(maxItems, SMALL_ARRAY));
  if (schema.uniqueItems === true) {
    return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  }
  return fc.array(items, { minLength, maxLength });
}

function objectArbitrary(schema: Schema, registry: SchemaRegistry): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const names = Object.keys(properties);
  const extra = schema.additionalProperties;
  if (names.length === 0 && extra !== undefined && extra !== false) {
    // A map (`metadata`): keys of any text, values of the given schema.
    const values = extra === true ? fc.string() : arbitraryFor(extra as Schema, registry);
    const maxKeys = typeof schema.maxProperties === 'number' ? schema.maxProperties : SMALL_OBJECT;
    return fc.dictionary(text(1, 40), values, { maxKeys: Math.min(maxKeys, SMALL_OBJECT) });
  }
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) {
    const member = properties[name];
    if (member !== undefined) model[name] = arbitraryFor(member, registry);
  }
  return fc.record(model, { requiredKeys: required.filter((r) => names.includes(r)) });
}

/** Merges the object members of an `allOf` (the spec's only use: wrapping one `$ref`). */
function mergeAllOf(parts: readonly Schema[], registry: SchemaRegistry): Schema {
  const [only] = parts;
  if (parts.length === 1 && only !== undefined) return only;
  const merged: Record<string, unknown> = { type: 'object', properties: {}, required: [] };
  for (const part of parts.map((p) => registry.resolve(p))) {
    Object.assign(merged.properties as object, part.properties ?? {});
    (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
  }
  return merged;
}

/** An arbitrary of values valid for `schema` (see the module comment for what is covered). */
export function arbitraryFor(schema: Schema, registry: SchemaRegistry): fc.Arbitrary<unknown> {
  const node = registry.resolve(schema);
  if ('const' in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  if (Array.isArray(node.allOf)) {
    return arbitraryFor(mergeAllOf(node.allOf as Schema[], registry), registry);
  }
  const branches = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b) => arbitraryFor(b, registry)));
  const type = node.type ?? (node.properties ? 'object' : undefined);
  if (Array.isArray(type)) {
    return fc.oneof(...type.map((t) => arbitraryFor({ ...node, type: t }, registry)));
  }
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArbitrary(node);
    case 'number':
      return fc.double({ ...numberBounds(node, false), noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArbitrary(node);
    case 'array':
      return arrayArbitrary(node, registry);
    case 'object':
      return objectArbitrary(node, registry);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
