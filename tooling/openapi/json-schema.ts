/**
 * The one conversion of an OpenAPI 3.0 Schema Object (OpenAPI 3.0.3 §4.7.24) to JSON Schema
 * draft-07, as Ajv reads it, in both directions (what a client sends, what it receives).
 *
 * A 3.0 Schema Object is "an extended subset" of JSON Schema Wright draft 00, so it cannot be
 * handed to Ajv as is. Each difference is converted on purpose:
 * - `nullable: true` (§4.7.24 "nullable") → `anyOf: [<schema>, { type: 'null' }]`, which also
 *   covers `nullable` without `type` and with `enum` or `$ref`.
 * - `readOnly` / `writeOnly` (§4.7.24): a property marked readOnly is removed (and dropped from
 *   `required`) in the `request` variant; writeOnly ones are removed in the `response` variant.
 *   A component schema whose tree contains either gets one `$id` per direction.
 * - `discriminator` (§4.7.25) is not a JSON Schema keyword: with `oneOf`/`anyOf` of `$ref`s it
 *   becomes a required, enumerated tag plus one `if`/`then` per value, so a payload is checked
 *   against the one branch its tag names (clear errors, no "matches more than one" failures);
 *   otherwise it is dropped (it only ever narrows what `oneOf` already says).
 * - `example` (§4.7.24) becomes `examples: [value]` when annotations are kept, else it is dropped.
 * - `format`: `date` stays a string format (no conversion to a Date: birth dates must not shift
 *   by time zone); formats ajv-formats knows are kept, others (`unix-time`, ...) are dropped so
 *   Ajv's strict mode does not reject the schema.
 * - Boolean `exclusiveMinimum`/`exclusiveMaximum` (draft 00) → the numeric draft-07 form.
 * - `$ref: '#/components/schemas/Name'` → the `$id` of the converted component; any other
 *   internal `$ref` is inlined. `x-*`, `xml`, `externalDocs`, `deprecated` are dropped.
 */

import { KNOWN_FORMATS } from '../../contract/formats.js';
import { escapeToken, getAtPointer, parseReference, toPointer } from '../../contract/pointer.js';
import type { JsonSchema } from '../../contract/route-types.js';
import { DocumentError } from './errors.js';

export type { JsonSchema };

/** Which side of the exchange a schema validates: what a client sends, or what it receives. */
export type Direction = 'request' | 'response';

export interface ConvertOptions {
  direction: Direction;
  /** The whole document, to read the targets of `$ref`s. */
  document: unknown;
  /**
   * The `$id` a component schema gets in this direction. Default: {@link componentSchemaId},
   * with a direction only for the schemas {@link directionalComponents} lists.
   */
  componentId?: (name: string, direction: Direction) => string;
  /** Keep `title`, `description`, `default` and `example` (as `examples`). Default false. */
  annotations?: boolean;
}

const COMPONENT_PREFIX = '#/components/schemas/';

/** Keywords copied as they are: they mean the same in OpenAPI 3.0 and JSON Schema draft-07. */
const PLAIN_KEYWORDS = [
  'type',
  'enum',
  'const',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
] as const;

/**
 * The `$id` of a component schema. Direction-neutral components share one id; the others get
 * one per direction.
 *
 * @example componentSchemaId('Patient', 'request') // 'urn:openapi:request:Patient'
 */
export function componentSchemaId(name: string, direction: Direction | null): string {
  return `urn:openapi:${direction ?? 'schema'}:${encodeURIComponent(name)}`;
}

/**
 * Converts one Schema Object. `pointer` names where it sits in the document, for errors.
 *
 * @example convertSchema({ type: 'string', nullable: true }, opts) // { anyOf: [{ type: 'string' }, { type: 'null' }] }
 */
export function convertSchema(schema: unknown, options: ConvertOptions, pointer = '#'): JsonSchema {
  return new Converter(options).convert(schema, pointer);
}

/** One converted component schema: its name, its direction (`null`: both alike) and the schema. */
export interface ConvertedComponent {
  name: string;
  direction: Direction | null;
  /** The converted schema with its `$id` ({@link componentSchemaId}). */
  schema: JsonSchema;
}

/**
 * The `default` of each field of an API object (a schema whose `object` property allows one
 * type name, not `list`), kept on the converted field even without `annotations`: it is what a
 * stored row written before the field existed answers (server/repos/stored-shape.ts reads it
 * from the route table). Such schemas are answers only, so no request or parameter validator
 * (whose Ajv applies defaults) ever reaches these.
 */
function keepFieldDefaults(source: unknown, converted: JsonSchema): void {
  if (source === null || typeof source !== 'object') return;
  const properties = (source as { properties?: unknown }).properties;
  if (properties === null || typeof properties !== 'object') return;
  const fields = properties as Record<string, unknown>;
  const type = fields.object as { enum?: unknown } | undefined;
  const values = Array.isArray(type?.enum) ? type.enum : [];
  if (values.length !== 1 || values[0] === 'list') return;
  const out = converted.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [name, field] of Object.entries(fields)) {
    const target = out?.[name];
    if (target === undefined || field === null || typeof field !== 'object') continue;
    if ('default' in field) target.default = (field as { default: unknown }).default;
  }
}

/**
 * Every schema of `components/schemas`, converted, sorted by name: one entry for a schema both
 * directions read alike, a `request` and a `response` entry for one with readOnly/writeOnly in
 * its tree. Route schemas `$ref` these by `$id`; register them all with Ajv first.
 *
 * @example convertComponentSchemas(doc).map((c) => c.schema.$id) // ['urn:openapi:schema:Error', ...]
 */
export function convertComponentSchemas(
  document: unknown,
  options: Omit<ConvertOptions, 'direction' | 'document'> = {},
): ConvertedComponent[] {
  const directional = directionalComponents(document);
  const componentId =
    options.componentId ??
    ((name: string, direction: Direction) =>
      componentSchemaId(name, directional.has(name) ? direction : null));
  const schemas = (getAtPointer(document, '#/components/schemas') ?? {}) as Record<string, unknown>;
  const converted: ConvertedComponent[] = [];
  for (const name of Object.keys(schemas).sort()) {
    const pointer = `#/components/schemas/${escapeToken(name)}`;
    const variants: (Direction | null)[] = directional.has(name) ? ['request', 'response'] : [null];
    for (const direction of variants) {
      const schema = convertSchema(
        schemas[name],
        { ...options, direction: direction ?? 'response', document, componentId },
        pointer,
      );
      if (direction !== 'request') keepFieldDefaults(schemas[name], schema);
      converted.push({
        name,
        direction,
        schema: { $id: componentSchemaId(name, direction), ...schema },
      });
    }
  }
  return converted;
}

/**
 * Names of component schemas whose request and response variants differ: those holding a
 * readOnly/writeOnly anywhere in their tree, or referring to one that does.
 */
export function directionalComponents(document: unknown): Set<string> {
  const schemas = (getAtPointer(document, '#/components/schemas') ?? {}) as Record<string, unknown>;
  const refsOf = new Map<string, Set<string>>();
  const marked = new Set<string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const refs = new Set<string>();
    let hasMarker = false;
    visit(schema, (node) => {
      if (node.readOnly === true || node.writeOnly === true) hasMarker = true;
      if (typeof node.$ref === 'string' && node.$ref.startsWith(COMPONENT_PREFIX)) {
        refs.add(componentName(node.$ref));
      }
    });
    refsOf.set(name, refs);
    if (hasMarker) marked.add(name);
  }
  // Propagate along references until nothing changes (reverse edges make it one pass each).
  const referrers = new Map<string, string[]>();
  for (const [name, refs] of refsOf) {
    for (const target of refs) {
      const list = referrers.get(target) ?? [];
      list.push(name);
      referrers.set(target, list);
    }
  }
  const queue = [...marked];
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    for (const referrer of referrers.get(name) ?? []) {
      if (!marked.has(referrer)) {
        marked.add(referrer);
        queue.push(referrer);
      }
    }
  }
  return marked;
}

function componentName(ref: string): string {
  return parseReference(ref.slice(COMPONENT_PREFIX.length - 1))[0] ?? '';
}

function visit(node: unknown, callback: (node: Record<string, unknown>) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) visit(item, callback);
    return;
  }
  const record = node as Record<string, unknown>;
  callback(record);
  for (const [key, value] of Object.entries(record)) {
    // `example`/`default` values and extensions are data, not schemas.
    if (key === 'example' || key === 'default' || key === 'enum' || key.startsWith('x-')) continue;
    visit(value, callback);
  }
}

const directionalCache = new WeakMap<object, Set<string>>();

/** Ids as `generators/routes.ts` assigns them: per direction only where the variants differ. */
function defaultComponentId(document: unknown): (name: string, direction: Direction) => string {
  return (name, direction) => {
    const key = (document ?? {}) as object;
    let directional = directionalCache.get(key);
    if (!directional) {
      directional = directionalComponents(document);
      directionalCache.set(key, directional);
    }
    return componentSchemaId(name, directional.has(name) ? direction : null);
  };
}

class Converter {
  private readonly direction: Direction;
  private readonly componentId: (name: string, direction: Direction) => string;
  private readonly annotations: boolean;
  private readonly inlining = new Set<string>();
  private readonly options: ConvertOptions;

  // Plain fields, no parameter properties: the generator runs under Node's type stripping.
  constructor(options: ConvertOptions) {
    this.options = options;
    this.direction = options.direction;
    this.annotations = options.annotations ?? false;
    this.componentId = options.componentId ?? defaultComponentId(options.document);
  }

  convert(schema: unknown, pointer: string): JsonSchema {
    if (schema === undefined || schema === true) return {};
    if (schema === false) return { not: {} };
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      throw new DocumentError(pointer, 'A Schema Object must be an object.');
    }
    const node = schema as Record<string, unknown>;
    if (typeof node.$ref === 'string') return this.reference(node.$ref, pointer);

    const out: Record<string, unknown> = {};
    if (this.annotations) {
      for (const key of ['title', 'description', 'default'] as const) {
        if (node[key] !== undefined) out[key] = node[key];
      }
      if (node.example !== undefined) out.examples = [node.example];
    }
    for (const key of PLAIN_KEYWORDS) {
      if (node[key] !== undefined) out[key] = node[key];
    }
    if (typeof node.format === 'string' && KNOWN_FORMATS.has(node.format)) out.format = node.format;
    this.numericBounds(node, out);
    this.objectKeywords(node, out, pointer);
    if (node.items !== undefined) out.items = this.convert(node.items, `${pointer}/items`);
    if (node.not !== undefined) out.not = this.convert(node.not, `${pointer}/not`);
    if (Array.isArray(node.allOf)) out.allOf = this.list(node.allOf, `${pointer}/allOf`);
    if (!this.discriminated(node, out, pointer)) {
      if (Array.isArray(node.oneOf)) out.oneOf = this.list(node.oneOf, `${pointer}/oneOf`);
      if (Array.isArray(node.anyOf)) out.anyOf = this.list(node.anyOf, `${pointer}/anyOf`);
    }
    if (node.nullable === true) return { anyOf: [out, { type: 'null' }] };
    return out;
  }

  private list(items: unknown[], pointer: string): JsonSchema[] {
    return items.map((item, index) => this.convert(item, `${pointer}/${index}`));
  }

  private reference(ref: string, pointer: string): JsonSchema {
    if (!ref.startsWith('#')) {
      throw new DocumentError(pointer, `External reference ${ref} was not bundled.`);
    }
    if (ref.startsWith(COMPONENT_PREFIX)) {
      const tokens = parseReference(ref.slice(COMPONENT_PREFIX.length - 1));
      const name = tokens[0] ?? '';
      const rest = tokens.length > 1 ? toPointer(tokens.slice(1)).slice(1) : '';
      return { $ref: `${this.componentId(name, this.direction)}${rest ? `#${rest}` : ''}` };
    }
    // A reference elsewhere (e.g. into a path's inline schema, as bundlers write them): inline it.
    if (this.inlining.has(ref)) return {};
    const target = getAtPointer(this.options.document, ref);
    if (target === undefined)
      throw new DocumentError(pointer, `Reference ${ref} points at nothing.`);
    this.inlining.add(ref);
    try {
      return this.convert(target, ref);
    } finally {
      this.inlining.delete(ref);
    }
  }

  /** Draft 00's boolean exclusive bounds become draft-07's numeric ones. */
  private numericBounds(node: Record<string, unknown>, out: Record<string, unknown>): void {
    for (const [bound, exclusive] of [
      ['minimum', 'exclusiveMinimum'],
      ['maximum', 'exclusiveMaximum'],
    ] as const) {
      const value = node[bound];
      const flag = node[exclusive];
      if (typeof flag === 'number') out[exclusive] = flag;
      if (value === undefined) continue;
      if (flag === true) out[exclusive] = value;
      else out[bound] = value;
    }
  }

  private objectKeywords(
    node: Record<string, unknown>,
    out: Record<string, unknown>,
    pointer: string,
  ): void {
    const dropped = new Set<string>();
    if (node.properties !== null && typeof node.properties === 'object') {
      const properties: Record<string, JsonSchema> = {};
      for (const [name, property] of Object.entries(node.properties as Record<string, unknown>)) {
        if (this.excluded(property)) {
          dropped.add(name);
          continue;
        }
        properties[name] = this.convert(property, `${pointer}/properties/${escapeToken(name)}`);
      }
      out.properties = properties;
    }
    if (Array.isArray(node.required)) {
      const required = node.required.filter((name) => !dropped.has(String(name)));
      if (required.length > 0) out.required = required;
    }
    const additional = node.additionalProperties;
    if (typeof additional === 'boolean') out.additionalProperties = additional;
    else if (additional !== undefined) {
      out.additionalProperties = this.convert(additional, `${pointer}/additionalProperties`);
    }
  }

  /** True when a property is left out of this direction (readOnly in requests, writeOnly in responses). */
  private excluded(property: unknown): boolean {
    const marker = this.direction === 'request' ? 'readOnly' : 'writeOnly';
    let node = property as Record<string, unknown> | null;
    const seen = new Set<string>();
    // A `$ref` cannot carry siblings in 3.0, so the marker may sit on the referenced schema.
    while (node && typeof node.$ref === 'string' && !seen.has(node.$ref)) {
      seen.add(node.$ref);
      node = getAtPointer(this.options.document, node.$ref) as Record<string, unknown> | null;
    }
    return node !== null && typeof node === 'object' && node[marker] === true;
  }

  /**
   * `discriminator` with `oneOf`/`anyOf` of references: a tag enum plus one `if`/`then` per tag
   * value. Returns false (and leaves `oneOf`/`anyOf` to the caller) when a branch is inline.
   */
  private discriminated(
    node: Record<string, unknown>,
    out: Record<string, unknown>,
    pointer: string,
  ): boolean {
    const discriminator = node.discriminator as
      | { propertyName?: unknown; mapping?: Record<string, unknown> }
      | undefined;
    const branches = (node.oneOf ?? node.anyOf) as unknown[] | undefined;
    if (
      !discriminator ||
      typeof discriminator.propertyName !== 'string' ||
      !Array.isArray(branches)
    ) {
      return false;
    }
    const refs = branches.map((branch) =>
      branch !== null && typeof branch === 'object'
        ? (branch as { $ref?: unknown }).$ref
        : undefined,
    );
    if (refs.some((ref) => typeof ref !== 'string')) return false;
    const property = discriminator.propertyName;
    const cases = new Map<string, string>();
    for (const [value, target] of Object.entries(discriminator.mapping ?? {})) {
      if (typeof target !== 'string') continue;
      // §4.7.25: a mapping value is a reference or a bare component name.
      cases.set(value, target.includes('/') ? target : `${COMPONENT_PREFIX}${target}`);
    }
    const mapped = new Set(cases.values());
    for (const ref of refs as string[]) {
      if (!mapped.has(ref) && ref.startsWith(COMPONENT_PREFIX)) cases.set(componentName(ref), ref);
    }
    const values = [...cases.keys()];
    const allOf = (out.allOf as JsonSchema[] | undefined) ?? [];
    for (const [value, ref] of cases) {
      allOf.push({
        if: { properties: { [property]: { const: value } }, required: [property] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited.
        then: this.reference(ref, `${pointer}/discriminator/mapping`),
      });
    }
    out.type = 'object';
    out.required = [...new Set([...((out.required as string[] | undefined) ?? []), property])];
    const properties = (out.properties as Record<string, JsonSchema> | undefined) ?? {};
    properties[property] = { type: 'string', enum: values };
    out.properties = properties;
    out.allOf = allOf;
    return true;
  }
}
