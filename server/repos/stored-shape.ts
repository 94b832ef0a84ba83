/**
 * Stored documents meet today's schema (docs/design.md#storage). Rows keep the JSON they were
 * written with, and nothing is migrated on disk; when the spec later adds a field to a stored
 * resource, a row written before it has no such key. On its way out, each stored object gets
 * what the response schema says an absent field is: its `default` when it has one, else `null`
 * for a required nullable field. The rules are derived once per route table from the response
 * component schemas (by their `object` type), not written per field, and applied where stored
 * JSON is read (`parseData`, `storedJson`), so `/v1`, FHIR, events and every version (converted
 * after this) see the same object.
 */
import type { JsonSchema } from '../../contract/route-types.js';
import type { ComponentSchemas } from '../http/validation.js';

type JsonObject = Record<string, unknown>;

/** Per API object type, the fields to fill when absent and their value. */
export type FillRules = ReadonlyMap<string, readonly (readonly [string, unknown])[]>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function schemaList(schemas: ComponentSchemas): readonly JsonSchema[] {
  return Array.isArray(schemas) ? schemas : Object.values(schemas);
}

/** Whether a converted schema admits `null` (`nullable` became `anyOf: [x, {type: 'null'}]`). */
function admitsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null') return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  const variants = [schema.anyOf, schema.oneOf].find(Array.isArray) as JsonSchema[] | undefined;
  return variants?.some((variant) => isObject(variant) && admitsNull(variant)) ?? false;
}

/** The value an absent field has by `schema`, or undefined when it has none. */
function absentValue(schema: JsonSchema, required: boolean): { value: unknown } | undefined {
  if ('default' in schema) return { value: schema.default };
  const variants = [schema.anyOf, schema.oneOf].find(Array.isArray) as JsonSchema[] | undefined;
  const withDefault = variants?.find((variant) => isObject(variant) && 'default' in variant);
  if (withDefault !== undefined) return { value: withDefault.default };
  return required && admitsNull(schema) ? { value: null } : undefined;
}

/**
 * The fill rules of a route table's component schemas: each response schema of one object type
 * (`properties.object.enum` of one value), each property with a value when absent.
 */
export function fillRulesOf(componentSchemas: ComponentSchemas): FillRules {
  const rules = new Map<string, (readonly [string, unknown])[]>();
  for (const schema of schemaList(componentSchemas)) {
    const id = String(schema.$id ?? '');
    if (id.startsWith('urn:openapi:request:')) continue;
    const properties = isObject(schema.properties) ? schema.properties : {};
    const type = properties.object;
    const values = isObject(type) && Array.isArray(type.enum) ? type.enum : [];
    if (values.length !== 1 || typeof values[0] !== 'string' || values[0] === 'list') continue;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const fills: (readonly [string, unknown])[] = [];
    for (const [name, property] of Object.entries(properties)) {
      if (!isObject(property)) continue;
      const absent = absentValue(property, required.has(name));
      if (absent !== undefined) fills.push([name, absent.value]);
    }
    if (fills.length > 0) rules.set(values[0], [...(rules.get(values[0]) ?? []), ...fills]);
  }
  return rules;
}

let current: FillRules = new Map();
/** Per object type, its filled fields as they start in JSON text (`"name":`). */
let keysByType: ReadonlyMap<string, readonly string[]> = new Map();

/** Serves `rules` from now on (each app sets those of its route table when it is built). */
export function useFillRules(rules: FillRules): void {
  current = rules;
  keysByType = new Map(
    [...rules].map(([type, fills]) => [type, fills.map(([name]) => `"${name}":`)] as const),
  );
}

function fillObject(object: JsonObject): boolean {
  let changed = false;
  const fills = typeof object.object === 'string' ? current.get(object.object) : undefined;
  for (const [name, value] of fills ?? []) {
    if (!(name in object)) {
      object[name] = structuredClone(value);
      changed = true;
    }
  }
  // An event's snapshot of the object it is about.
  const data = object.data;
  if (isObject(data) && isObject(data.object)) changed = fillObject(data.object) || changed;
  return changed;
}

/** `document` (parsed stored JSON) with its absent fields filled, in place. */
export function meetSchema<T>(document: T): T {
  if (current.size > 0 && isObject(document)) fillObject(document);
  return document;
}

/**
 * Stored JSON text meeting today's schema: unchanged (not even parsed) when it already names
 * every field there is a rule for, which is every row written since the field was added.
 * Parsing every row instead was about a tenth of the service's CPU under `bench:server` (b)
 * (BENCHMARKS.md, issue 43).
 */
export function meetSchemaText(json: string): string {
  if (keysByType.size === 0 || namesEveryField(json)) return json;
  const document = JSON.parse(json) as unknown;
  return isObject(document) && fillObject(document) ? JSON.stringify(document) : json;
}

/** Each `"object":"<type>"` of a text: the API objects in it, the top one and any snapshot. */
const OBJECT_TYPE = /"object":"([a-z_]+)"/g;

/**
 * Whether the text names every filled field of each API object type it holds. A field name
 * inside a string is escaped (`\"name\":`), so it cannot pass for a key; the one place a
 * client chooses keys is `metadata` (a flat map of strings), whose text is left out first.
 * A key is looked for in the whole text, not in its object: a text holds one object, or an
 * event and its snapshot, which share no filled field (test/service/stored-shape.test.ts).
 */
function namesEveryField(json: string): boolean {
  const text = json.includes('"metadata":{"') ? withoutMetadata(json) : json;
  for (const match of text.matchAll(OBJECT_TYPE)) {
    const keys = keysByType.get(match[1]!);
    if (keys !== undefined && !keys.every((key) => text.includes(key))) return false;
  }
  return true;
}

/** The text with the inside of every non-empty `"metadata":{…}` removed. */
function withoutMetadata(json: string): string {
  const parts: string[] = [];
  let from = 0;
  for (;;) {
    const start = json.indexOf('"metadata":{"', from);
    if (start < 0) break;
    const open = start + '"metadata":{'.length;
    parts.push(json.slice(from, open));
    from = closingBrace(json, open);
  }
  parts.push(json.slice(from));
  return parts.join('');
}

/** The index of the `}` that closes the object whose content starts at `i`. */
function closingBrace(json: string, i: number): number {
  let depth = 1;
  let inString = false;
  for (; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return i;
  }
  return json.length;
}
