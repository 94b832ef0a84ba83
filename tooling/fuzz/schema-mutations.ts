/**
 * Broken values, one fault at a time: take a valid value, pick one node of it, and break that
 * node the way its schema says it must not be (a required field missing, an unknown field, a
 * wrong type, a length or range just outside its bounds, a value outside the enum, a string
 * not matching the pattern or format, too many or too few items, duplicates in a unique list,
 * a huge or exotic string). Every result is re-checked with the Ajv oracle, so a "broken"
 * value that the schema still accepts (a wrong type that another `anyOf` branch allows) never
 * counts as invalid input.
 */
import fc from 'fast-check';
import { BAD_FORMATS } from './formats.js';
import type { Schema, SchemaRegistry } from './schema-registry.js';

/** A broken value and the one fault it carries. */
export interface Broken {
  value: unknown;
  why: string;
}

type Path = readonly (string | number)[];

/** One way to break one node; `kind` groups them so every kind gets its share of cases. */
interface Site {
  kind: string;
  arbitrary: fc.Arbitrary<Broken>;
}

/** One MiB and a bit: more than the service's body limit, so it must never be accepted. */
export const HUGE_LENGTH = 1024 * 1024 + 1024;

/** `a[b][0]`, the bracket notation the service's error `param` uses. */
export function pathName(path: Path): string {
  if (path.length === 0) return '(root)';
  return `${String(path[0])}${path
    .slice(1)
    .map((p) => `[${String(p)}]`)
    .join('')}`;
}

function setAt(root: unknown, path: Path, value: unknown, remove = false): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1) ?? '';
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

const WRONG_TYPES: readonly unknown[] = ['text', '', 0, -1, 1.5, true, false, null, [], {}, ['x']];

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The branch of an `anyOf`/`oneOf` that `value` satisfies, or the node itself. */
function effective(schema: Schema, value: unknown, registry: SchemaRegistry): Schema | undefined {
  const node = registry.resolve(schema);
  if (Array.isArray(node.allOf) && node.allOf.length === 1) {
    return effective(node.allOf[0] as Schema, value, registry);
  }
  const branches = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches)) {
    const match = branches.find((b) => registry.valid(b, value));
    return match === undefined ? undefined : effective(match, value, registry);
  }
  return node;
}

function add(out: Site[], kind: string, arbitrary: fc.Arbitrary<Broken>): void {
  out.push({ kind, arbitrary });
}

/** Fault arbitraries for one node and, recursively, its children. */
function sites(
  schema: Schema,
  root: unknown,
  value: unknown,
  path: Path,
  registry: SchemaRegistry,
  out: Site[],
): void {
  const node = effective(schema, value, registry);
  if (node === undefined) return;
  const name = pathName(path);
  const put = (v: unknown, why: string): Broken => ({ value: setAt(root, path, v), why });

  const wrong = WRONG_TYPES.filter((w) => jsonType(w) !== jsonType(value));
  out.push({
    kind: 'type',
    arbitrary: fc
      .constantFrom(...wrong)
      .map((w) => put(w, `wrong type at ${name}: ${jsonType(w)}`)),
  });

  if (Array.isArray(node.enum)) {
    add(
      out,
      'enum',
      fc
        .oneof(fc.string({ maxLength: 12 }), fc.constant(String(value).toUpperCase()))
        .map((s) => put(s, `value outside the enum at ${name}`)),
    );
  }
  if (typeof value === 'string') stringSites(node, value, name, put, out);
  if (typeof value === 'number') numberSites(node, name, put, out);
  if (Array.isArray(value)) arraySites(node, value, root, path, registry, put, out);
  else if (value !== null && typeof value === 'object') {
    objectSites(node, value as Record<string, unknown>, root, path, registry, out);
  }
}

type Put = (v: unknown, why: string) => Broken;

function stringSites(node: Schema, value: string, name: string, put: Put, out: Site[]): void {
  if (typeof node.maxLength === 'number') {
    const over = node.maxLength + 1;
    add(
      out,
      'maxLength',
      fc
        .constantFrom('x', 'é', '😀')
        .map((c) => put(c.repeat(over), `${name} one longer than maxLength ${node.maxLength}`)),
    );
  }
  if (typeof node.minLength === 'number' && node.minLength > 0) {
    const under = 'y'.repeat(node.minLength - 1);
    add(
      out,
      'minLength',
      fc.constant(put(under, `${name} one shorter than minLength ${node.minLength}`)),
    );
  }
  if (typeof node.pattern === 'string') {
    add(
      out,
      'pattern',
      fc
        .oneof(
          fc.string({ unit: 'grapheme', maxLength: 30 }),
          fc.constant(` ${value}`),
          fc.constant(`${value}\n`),
          fc.constant(value.toLowerCase() === value ? value.toUpperCase() : value.toLowerCase()),
        )
        .map((s) => put(s, `${name} not matching ${node.pattern}`)),
    );
  }
  const bad = typeof node.format === 'string' ? BAD_FORMATS[node.format] : undefined;
  if (bad !== undefined) {
    add(
      out,
      'format',
      fc.constantFrom(...bad).map((s) => put(s, `${name} not a valid ${node.format}`)),
    );
  }
  // Text the spec refuses whatever the schema: NUL, lone or reversed surrogates.
  add(
    out,
    'text',
    fc
      .constantFrom(
        ['a NUL', `${value}\u0000`],
        ['a NUL inside', `\u0000${value}`],
        ['a NUL alone', '\u0000'],
        ['a lone high surrogate', `${value}\ud800`],
        ['a lone low surrogate', `\udfff${value}`],
        ['a reversed surrogate pair', '\ude00\ud83d'],
      )
      .map(([what, s]) => put(s, `${what} in ${name}`)),
  );
  // 64 KiB: past every maxLength, inside the body limit, past PostgreSQL's index row size.
  add(
    out,
    'long',
    fc
      .constantFrom('x', 'é', '😀')
      .map((c) => put(c.repeat(64 * 1024), `64 KiB string at ${name}`)),
  );
  // Larger than the body limit: 413 (or 400) is fine, acceptance or a crash is not.
  add(
    out,
    'huge',
    fc
      .constantFrom('A', 'ü', '𝄞')
      .map((c) => put(c.repeat(HUGE_LENGTH), `huge string (> 1 MiB) at ${name}`)),
  );
}

function numberSites(node: Schema, name: string, put: Put, out: Site[]): void {
  if (typeof node.minimum === 'number') {
    add(
      out,
      'minimum',
      fc.constant(put(node.minimum - 1, `${name} below minimum ${node.minimum}`)),
    );
  }
  if (typeof node.maximum === 'number') {
    add(
      out,
      'maximum',
      fc.constant(put(node.maximum + 1, `${name} above maximum ${node.maximum}`)),
    );
  }
  if (node.type === 'integer') {
    // Not integers, or integers no database stores as sent (beyond ±(2^53 − 1), int64 edges).
    add(
      out,
      'integer',
      fc
        .constantFrom(
          0.5,
          1.000001,
          2 ** 53,
          -(2 ** 53),
          2 ** 53 + 2,
          2 ** 63,
          -(2 ** 63),
          2 ** 64,
          -(2 ** 64),
          1e308,
          -1e308,
        )
        .map((n) => put(n, `${name} not an exact integer: ${n}`)),
    );
  }
}

function arraySites(
  node: Schema,
  value: unknown[],
  root: unknown,
  path: Path,
  registry: SchemaRegistry,
  put: Put,
  out: Site[],
): void {
  const name = pathName(path);
  if (typeof node.maxItems === 'number' && value.length > 0) {
    const over = Array.from({ length: node.maxItems + 1 }, (_, i) => value[i % value.length]);
    add(
      out,
      'maxItems',
      fc.constant(put(over, `${name} with maxItems + 1 (${node.maxItems + 1}) items`)),
    );
  }
  if (typeof node.minItems === 'number' && node.minItems > 0) {
    add(
      out,
      'minItems',
      fc.constant(
        put(value.slice(0, node.minItems - 1), `${name} below minItems ${node.minItems}`),
      ),
    );
  }
  if (node.uniqueItems === true && value.length > 0) {
    add(out, 'unique', fc.constant(put([...value, value[0]], `${name} with a duplicate item`)));
  }
  if (node.items !== undefined) {
    value.forEach((item, i) => {
      sites(node.items as Schema, root, item, [...path, i], registry, out);
    });
  }
}

function objectSites(
  node: Schema,
  value: Record<string, unknown>,
  root: unknown,
  path: Path,
  registry: SchemaRegistry,
  out: Site[],
): void {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const required = (node.required ?? []) as string[];
  for (const field of required) {
    if (field in value) {
      const broken = { value: setAt(root, [...path, field], undefined, true) };
      add(
        out,
        'missing',
        fc.constant({ ...broken, why: `missing required ${pathName([...path, field])}` }),
      );
    }
  }
  if (node.additionalProperties === false) {
    add(
      out,
      'unknown',
      fc
        .tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.jsonValue({ maxDepth: 1 }))
        .filter(([key]) => !(key in properties) && key !== '__proto__')
        .map(([key, v]) => ({
          value: setAt(root, [...path, key], v),
          why: `unknown field ${pathName([...path, key])}`,
        })),
    );
  }
  if (typeof node.maxProperties === 'number') {
    const many: Record<string, string> = {};
    for (let i = 0; i <= node.maxProperties; i++) many[`key_${i}`] = 'v';
    add(
      out,
      'maxProperties',
      fc.constant({
        value: setAt(root, path, many),
        why: `${pathName(path)} with maxProperties + 1 keys`,
      }),
    );
  }
  for (const [field, child] of Object.entries(value)) {
    const childSchema =
      properties[field] ??
      (typeof node.additionalProperties === 'object' ? (node.additionalProperties as Schema) : {});
    sites(childSchema, root, child, [...path, field], registry, out);
  }
}

/**
 * Broken variants of the values of `valid`, one fault each, that `schema` rejects.
 *
 * @example
 * fc.sample(brokenArbitrary(bodySchema, validBodies, registry), 1)[0].why
 * // 'missing required name[family]'
 */
export function brokenArbitrary(
  schema: Schema,
  valid: fc.Arbitrary<unknown>,
  registry: SchemaRegistry,
): fc.Arbitrary<Broken> {
  return valid
    .chain((value) => {
      const out: Site[] = [];
      sites(schema, value, value, [], registry, out);
      // A kind first, then a node: every node can take a wrong type or a huge string, and
      // picking nodes first would leave the rarer faults (unknown field, enum) few cases.
      const kinds = new Map<string, fc.Arbitrary<Broken>[]>();
      for (const site of out) {
        kinds.set(site.kind, [...(kinds.get(site.kind) ?? []), site.arbitrary]);
      }
      return fc.oneof(
        ...[...kinds].map(([kind, arbitraries]) => ({
          arbitrary: fc.oneof(...arbitraries),
          // Huge bodies are slow to send and all answer 413 alike: fewer of them.
          // Text and integers no database stores as sent: more of them, they found 500s.
          weight: kind === 'huge' ? 1 : kind === 'text' ? 12 : kind === 'integer' ? 8 : 3,
        })),
      );
    })
    .filter((broken) => !registry.valid(schema, broken.value));
}
