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

/**
 * How `namesEveryField` reads a text in one pass: a pattern matching every key it cares about
 * (each filled field, `object` and `metadata`), each field's index in `seen`, and per object
 * type the indexes of its filled fields.
 */
interface KeyScan {
  pattern: RegExp;
  indexOf: ReadonlyMap<string, number>;
  fieldsOf: ReadonlyMap<string, readonly number[]>;
  /** Per field index, the number of the last text that named it (no reset between texts). */
  seen: Int32Array;
}
let scan: KeyScan | undefined;
let texts = 0;

/** Serves `rules` from now on (each app sets those of its route table when it is built). */
export function useFillRules(rules: FillRules): void {
  current = rules;
  forgetChecked();
  const names = [...new Set([...rules.values()].flatMap((fills) => fills.map(([name]) => name)))];
  const indexOf = new Map(names.map((name, i) => [name, i]));
  const escaped = ['object', 'metadata', ...names].map((name) =>
    name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
  scan =
    rules.size === 0
      ? undefined
      : {
          pattern: new RegExp(`"(?:${escaped.join('|')})":`, 'g'),
          indexOf,
          fieldsOf: new Map(
            [...rules].map(([type, fills]) => [type, fills.map(([name]) => names.indexOf(name))]),
          ),
          seen: new Int32Array(names.length),
        };
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
export function meetSchemaText(json: string, id?: string): string {
  if (scan === undefined) return json;
  if (id !== undefined && checked.get(id) === json) return json;
  if (namesEveryField(json, scan)) {
    if (id !== undefined) remember(id, json);
    return json;
  }
  const document = JSON.parse(json) as unknown;
  return isObject(document) && fillObject(document) ? JSON.stringify(document) : json;
}

/**
 * Stored texts already found to name every field, by row id: a row read again (a list polled,
 * a record opened twice) is compared, not scanned. Equality of the whole text is the check, so
 * an updated row is scanned anew. Bounded by the characters held; emptied when full and when
 * the rules change.
 */
const checked = new Map<string, string>();
const CHECKED_MAX_CHARS = 4_000_000;
let checkedChars = 0;

function remember(id: string, json: string): void {
  if (checkedChars + json.length > CHECKED_MAX_CHARS) forgetChecked();
  checkedChars += json.length - (checked.get(id)?.length ?? 0);
  checked.set(id, json);
}

function forgetChecked(): void {
  checked.clear();
  checkedChars = 0;
}

/**
 * Whether the text names every filled field of each API object type it holds (`"object":"…"`:
 * the top object and an event's snapshot). One regular-expression pass over the text; looking
 * for each key with `includes` and the types with a second pattern cost about 2 µs per patient
 * row, as much as parsing it, and a tenth of the service's CPU under `bench:server` (b), which
 * reads ten rows a request (BENCHMARKS.md, issue 43). A field name inside a string is escaped
 * (`\"name\":`), so it cannot pass for a key; the one place a client chooses keys is
 * `metadata` (a flat map of strings), which is skipped. A key counts wherever it is in the
 * text: a text holds one object, or an event and its snapshot, which share no filled field
 * (test/service/stored-shape.test.ts).
 */
function namesEveryField(json: string, { pattern, indexOf, fieldsOf, seen }: KeyScan): boolean {
  if (++texts === 0x7fffffff) {
    // Numbers stay in range: start again with nothing seen.
    seen.fill(0);
    texts = 1;
  }
  const text = texts;
  const types: string[] = [];
  pattern.lastIndex = 0;
  while (pattern.test(json)) {
    // Just past `"name":`.
    const end = pattern.lastIndex;
    const name = json.slice(json.lastIndexOf('"', end - 3) + 1, end - 2);
    if (name === 'object') {
      if (json.charCodeAt(end) === 0x22)
        types.push(json.slice(end + 1, json.indexOf('"', end + 1)));
    } else if (name === 'metadata') {
      if (json.charCodeAt(end) === 0x7b) pattern.lastIndex = closingBrace(json, end + 1);
    } else {
      const index = indexOf.get(name);
      if (index !== undefined) seen[index] = text;
    }
  }
  for (const type of types) {
    for (const index of fieldsOf.get(type) ?? []) if (seen[index] !== text) return false;
  }
  return true;
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
