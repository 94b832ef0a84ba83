/**
 * The costliest bodies the spec lets a client send, built from each operation's own schemas
 * (docs/design.md#validation-cost): for every array of the body its largest legal size filled
 * with duplicates (`uniqueItems` compares every pair) and far beyond `maxItems`, for every
 * string its longest legal length and far beyond `maxLength` (letters, and digits for a
 * `pattern`), and bodies nested as deep as the body limit allows, or with as many keys. The
 * worst-body test (`test/http/worst-bodies.test.ts`) and `npm run bench:hostile` send them.
 */
import fc from 'fast-check';
import type { JsonSchema, RouteDefinition } from '../../contract/route-types.js';
import { componentSchemas, routes } from '../../generated/routes.js';
import { versionRouteTables } from '../../generated/versions/index.js';
import { type QueryText, serializeQuery } from './request-parts.js';
import { arbitraryFor } from './schema-arbitrary.js';
import { type Schema, SchemaRegistry } from './schema-registry.js';

/** One request: where it goes and what it carries; `label` says which worst case it is. */
export interface WorstRequest {
  operationId: string;
  label: string;
  method: string;
  url: string;
  contentType: string;
  payload: string;
  /** Which key to send it with (createToken takes only a publishable key). */
  key: 'secret' | 'publishable';
}

/** A place in the body a size applies to: an array or a string, by its path from the root. */
interface Place {
  path: (string | number)[];
  kind: 'array' | 'string';
  max: number | undefined;
  items?: Schema;
  pattern: boolean;
}

/** How many bytes of the body limit a worst case fills, leaving room for the rest of the body. */
const FILL = 0.85;

/** Resolves `$ref`s; an unresolvable one counts as "anything". */
function resolved(schema: unknown, registry: SchemaRegistry): Schema | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  try {
    return registry.resolve(schema as Schema);
  } catch {
    return undefined;
  }
}

/** Every array and string place of `schema`, through properties, items and every branch. */
function places(schema: Schema, registry: SchemaRegistry): Place[] {
  const out: Place[] = [];
  const seen = new Set<string>();
  const visit = (raw: unknown, path: (string | number)[], depth: number) => {
    const s = resolved(raw, registry);
    if (s === undefined || depth > 8) return;
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      for (const branch of (s[key] as unknown[] | undefined) ?? []) visit(branch, path, depth + 1);
    }
    const types = s.type === undefined ? [] : [s.type].flat().map(String);
    const id = `${path.join('/')}:${types.join(',')}`;
    if (seen.has(id)) return;
    seen.add(id);
    if (types.includes('array') || s.items !== undefined) {
      const items = Array.isArray(s.items) ? undefined : (s.items as Schema | undefined);
      out.push({
        path,
        kind: 'array',
        max: typeof s.maxItems === 'number' ? s.maxItems : undefined,
        ...(items ? { items } : {}),
        pattern: false,
      });
      if (items !== undefined) visit(items, [...path, 0], depth + 1);
    }
    if (types.includes('string')) {
      out.push({
        path,
        kind: 'string',
        max: typeof s.maxLength === 'number' ? s.maxLength : undefined,
        pattern: typeof s.pattern === 'string' || typeof s.format === 'string',
      });
    }
    for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
      visit(sub, [...path, name], depth + 1);
    }
  };
  visit(schema, [], 0);
  return out;
}

/** One valid value of `schema` (fixed seed, so every run sends the same bodies), else `fallback`. */
function sample(schema: Schema | undefined, registry: SchemaRegistry, fallback: unknown): unknown {
  if (schema === undefined) return fallback;
  try {
    const valid = arbitraryFor(schema, registry).filter((v) => registry.valid(schema, v));
    return fc.sample(valid, { seed: 42, numRuns: 1 })[0] ?? fallback;
  } catch {
    return fallback;
  }
}

/** `base` with `value` put at `path`, creating the objects and arrays on the way. */
function setAt(base: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (typeof head === 'number') {
    const list = Array.isArray(base) && base.length > 0 ? [...base] : [{}];
    list[0] = setAt(list[0], rest, value);
    return list;
  }
  const object = base !== null && typeof base === 'object' && !Array.isArray(base) ? base : {};
  return { ...object, [head]: setAt((object as Record<string, unknown>)[head], rest, value) };
}

function label(place: Place, what: string): string {
  return `${place.path.length === 0 ? 'body' : place.path.join('.')}: ${what}`;
}

/** The worst values for one place, each with what it is. */
function worstValues(place: Place, registry: SchemaRegistry, room: number): [string, unknown][] {
  if (place.kind === 'string') {
    const out: [string, unknown][] = [];
    if (place.max !== undefined)
      out.push([`${place.max} characters (maxLength)`, 'a'.repeat(place.max)]);
    out.push([`${room} letters`, 'a'.repeat(room)]);
    if (place.pattern) out.push([`${room} digits and a letter`, `${'1'.repeat(room)}x`]);
    return out;
  }
  const item = sample(place.items, registry, 0);
  const size = JSON.stringify(item).length + 1;
  const many = Math.max(1, Math.floor(room / size));
  const out: [string, unknown][] = [];
  if (place.max !== undefined) {
    out.push([`${place.max} duplicate items (maxItems)`, new Array(place.max).fill(item)]);
  }
  out.push([`${many} duplicate items`, new Array(many).fill(item)]);
  // Numbers where the items are something else (the 50,000 `scopes` of issue 42): every item
  // fails, and with every error collected each is compared with every other.
  const count = Math.floor(room / 7);
  out.push([`${count} distinct numbers`, Array.from({ length: count }, (_, i) => 100_000 + i)]);
  return out;
}

/** JSON nested `depth` deep, as text: `[[[…]]]` or `{"a":{"a":…}}`. */
function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** How large the worst bodies are. */
export interface WorstSizes {
  /** The service's body limit: bodies nested deepest, or with the most keys, fill most of it. */
  bodyLimit: number;
  /**
   * The bytes of each place's worst value (arrays and strings far beyond their bounds); default
   * most of `bodyLimit`. Validation's cost is linear in it, so the fast tier uses a quarter.
   */
  placeBytes?: number;
}

/**
 * The worst requests of `route` for a route table whose components `registry` holds. The path's
 * `{…}` are filled with valid values, so every request reaches body validation.
 */
export function worstRequests(
  route: RouteDefinition,
  registry: SchemaRegistry,
  sizes: WorstSizes,
): WorstRequest[] {
  const schema = route.schemas.body as Schema | undefined;
  if (route.method === 'GET' || route.method === 'DELETE' || route.method === 'HEAD') return [];
  const params = route.schemas.params as Schema | undefined;
  const pathValues = (params ? sample(params, registry, {}) : {}) as Record<string, unknown>;
  const url = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(pathValues[name] ?? 'x')),
  );
  const form = route.bodyMediaType === 'application/x-www-form-urlencoded';
  const contentType = route.bodyMediaType ?? 'application/json';
  const room = Math.floor(sizes.bodyLimit * FILL);
  const placeRoom = Math.min(room, sizes.placeBytes ?? room);
  const key = route.keyKinds?.includes('secret') === false ? 'publishable' : 'secret';
  const make = (what: string, payload: string): WorstRequest => ({
    operationId: route.operationId,
    label: what,
    method: route.method,
    url,
    contentType,
    payload,
    key,
  });

  if (form) return formRequests(room, make);
  const out: WorstRequest[] = [];
  const base = sample(schema, registry, {});
  for (const place of schema ? places(schema, registry) : []) {
    // Room for the base body around the worst value.
    const left = placeRoom - JSON.stringify(base).length;
    for (const [what, value] of worstValues(place, registry, left)) {
      out.push(make(label(place, what), JSON.stringify(setAt(base, place.path, value))));
    }
  }
  const depth = Math.floor(room / 6);
  out.push(
    make(`body: arrays nested ${Math.floor(room / 2)} deep`, nested('array', Math.floor(room / 2))),
  );
  out.push(make(`body: objects nested ${depth} deep`, nested('object', depth)));
  const keys = Math.floor(room / 12);
  const wide = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 1]));
  out.push(make(`body: ${keys} unknown keys`, JSON.stringify(wide)));
  return out;
}

/** Form bodies (FHIR searches by POST): one huge value, one name many times, many names. */
function formRequests(
  room: number,
  make: (what: string, payload: string) => WorstRequest,
): WorstRequest[] {
  const repeats = Math.floor(room / 8);
  const names = Math.floor(room / 12);
  const many: QueryText = {};
  for (let i = 0; i < names; i++) many[`p${i}`] = '1';
  return [
    make(`form: one value of ${room} characters`, serializeQuery({ name: 'a'.repeat(room) })),
    make(
      `form: _id given ${repeats} times`,
      serializeQuery({ _id: new Array<string>(repeats).fill('x') }),
    ),
    make(`form: ${names} names`, serializeQuery(many)),
  ];
}

/** A version's route table, as the service serves it. */
export interface ServedTable {
  version: string;
  routes: readonly RouteDefinition[];
  componentSchemas: readonly JsonSchema[];
}

/** The latest version's table (`generated/routes.ts`, named `latest`) and every older one's. */
export async function servedTables(latest: string): Promise<ServedTable[]> {
  const tables: ServedTable[] = [
    { version: latest, routes, componentSchemas: Object.values(componentSchemas) },
  ];
  for (const [version, load] of Object.entries(versionRouteTables)) {
    tables.push({ version, ...(await load()) });
  }
  return tables;
}

/** An operation with a body, in one version, with the registry of that version's schemas. */
export interface WorstOperation {
  version: string;
  route: RouteDefinition;
  registry: SchemaRegistry;
}

/** A schema with every `$ref` written out, as text: two versions' schemas compare equal by it. */
function spelledOut(schema: unknown, registry: SchemaRegistry): string {
  const inline = (s: unknown, depth: number): unknown => {
    if (s === null || typeof s !== 'object' || depth > 30) return s;
    if (Array.isArray(s)) return s.map((x) => inline(x, depth + 1));
    const target =
      typeof (s as { $ref?: unknown }).$ref === 'string'
        ? registry.resolve(s as Record<string, unknown>)
        : s;
    const { $id: _id, ...rest } = target as Record<string, unknown>;
    return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v, depth + 1)]));
  };
  return JSON.stringify(inline(schema, 0));
}

/**
 * Every operation with a body, of every table; an older version's operation whose body and
 * path schemas are those of a table before it is left out (its validator would be given the
 * same bodies and judge them the same way).
 */
export function worstOperations(tables: readonly ServedTable[]): WorstOperation[] {
  const seen = new Set<string>();
  const out: WorstOperation[] = [];
  for (const table of tables) {
    const registry = new SchemaRegistry(table.componentSchemas);
    for (const route of table.routes) {
      if (route.schemas.body === undefined) continue;
      const id = `${route.operationId} ${spelledOut(route.schemas.body, registry)} ${spelledOut(route.schemas.params, registry)}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ version: table.version, route, registry });
    }
  }
  return out;
}

/** A malformed or oversized body for `POST`, with what it is. */
export interface MalformedBody {
  label: string;
  url: string;
  contentType: string;
  payload: string | Buffer;
}

/**
 * Seven malformed or oversized JSON bodies of about `size` bytes (the last just over it):
 * broken JSON, bytes that are not UTF-8, 100,000 numbers as `scopes` (at 1 MiB), a name far
 * over its `maxLength`, unknown keys, deep nesting, and a body over the limit. `patient` is
 * an existing patient's id, for the `scopes` body.
 */
export function malformedBodies(patient: string, size: number): MalformedBody[] {
  const json = 'application/json';
  const room = Math.floor(size * 0.9);
  const scopes = Array.from({ length: Math.floor(room / 6.5) }, (_, i) => i);
  const keys = Object.fromEntries(
    Array.from({ length: Math.floor(room / 12) }, (_, i) => [`k${i}`, 1]),
  );
  const latin1 = Buffer.alloc(room, 0xe9);
  latin1.write('{"name":{"family":"', 0);
  const depth = Math.floor(room / 2);
  return [
    {
      label: 'broken JSON',
      url: '/v1/patients',
      contentType: json,
      payload: `{"name":{"family":"${'a'.repeat(room)}`,
    },
    { label: 'not UTF-8', url: '/v1/patients', contentType: json, payload: latin1 },
    {
      label: `${scopes.length} scopes`,
      url: '/v1/ephemeral_keys',
      contentType: json,
      payload: JSON.stringify({ patient, scopes }),
    },
    {
      label: `${room} character family name`,
      url: '/v1/patients',
      contentType: json,
      payload: JSON.stringify({ name: { family: 'a'.repeat(room) } }),
    },
    {
      label: `${Object.keys(keys).length} unknown keys`,
      url: '/v1/patients',
      contentType: json,
      payload: JSON.stringify(keys),
    },
    {
      label: `nested ${depth} deep`,
      url: '/v1/patients',
      contentType: json,
      payload: `${'['.repeat(depth)}${']'.repeat(depth)}`,
    },
    {
      label: 'over the size',
      url: '/v1/patients',
      contentType: json,
      payload: `{"a":"${'a'.repeat(Math.ceil(size * 1.1))}"}`,
    },
  ];
}
