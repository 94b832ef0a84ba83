/**
 * readOnly and writeOnly properties per operation, read from `spec/openapi.yaml` itself (not
 * from the generated table, which already dropped them): what API3 tests send and look for.
 */
import { loadSpec } from '../../spec/load-spec.js';

type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  readOnly?: boolean;
  writeOnly?: boolean;
};

const spec = loadSpec() as {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, ResponseObject> };
};
interface OperationObject {
  operationId?: string;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses?: Record<string, ResponseObject>;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema: Schema }>;
}

function resolve(schema: Schema): Schema {
  let current = schema;
  while (current.$ref !== undefined) {
    current = spec.components.schemas[current.$ref.split('/').pop()!]!;
  }
  return current;
}

/** A property path (`['line_items', 0, 'amount']`) and a value of its type. */
export interface PropertyProbe {
  path: Array<string | number>;
  value: unknown;
}

function sample(schema: Schema): unknown {
  const s = resolve(schema.allOf?.[0] ?? schema);
  if (s.enum !== undefined) return s.enum.find((v) => v !== null);
  switch (s.type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return 1;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'x';
  }
}

function collect(
  schema: Schema,
  flag: 'readOnly' | 'writeOnly',
  path: Array<string | number>,
  out: PropertyProbe[],
  depth: number,
): void {
  const s = resolve(schema);
  for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? [])])
    collect(part, flag, path, out, depth);
  for (const [name, raw] of Object.entries(s.properties ?? {})) {
    const prop = raw.allOf && raw[flag] === undefined ? { ...raw, ...resolve(raw.allOf[0]!) } : raw;
    if (raw[flag] === true || resolve(prop)[flag] === true) {
      out.push({ path: [...path, name], value: sample(raw) });
      continue;
    }
    if (depth > 0) {
      const inner = resolve(prop);
      if (inner.type === 'array' && inner.items) {
        collect(inner.items, flag, [...path, name, 0], out, depth - 1);
      } else if (inner.properties) collect(inner, flag, [...path, name], out, depth - 1);
    }
  }
}

function operation(operationId: string): OperationObject {
  for (const item of Object.values(spec.paths)) {
    for (const op of Object.values(item)) if (op.operationId === operationId) return op;
  }
  throw new Error(`no operation ${operationId} in the spec`);
}

/** Top-level property schemas of an object schema, through $ref, allOf and every oneOf branch. */
function topProperties(schema: Schema, out = new Map<string, Schema>()): Map<string, Schema> {
  const s = resolve(schema);
  for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? [])]) topProperties(part, out);
  for (const [name, prop] of Object.entries(s.properties ?? {})) out.set(name, prop);
  return out;
}

/**
 * What a mass-assignment probe sends to a write: the readOnly properties of the object it
 * answers with (200), nested one level, and every other top-level property of that answer the
 * write's body does not declare (`id`, `created`, `object`, … are server-owned whether or not
 * the spec marks them readOnly; design.md#redocly-score says why some are not marked).
 */
export function readOnlyProbes(operationId: string): PropertyProbe[] {
  const op = operation(operationId);
  let response = op.responses?.['200'];
  if (response?.$ref !== undefined) {
    response = spec.components.responses[response.$ref.split('/').pop()!];
  }
  const schema = response?.content?.['application/json']?.schema;
  const out: PropertyProbe[] = [];
  if (schema === undefined) return out;
  collect(schema, 'readOnly', [], out, 1);
  const body = op.requestBody?.content['application/json']?.schema;
  const accepted = body === undefined ? new Map<string, Schema>() : topProperties(body);
  const probed = new Set(out.map((probe) => probe.path.join('.')));
  for (const [name, prop] of topProperties(schema)) {
    if (!accepted.has(name) && !probed.has(name)) out.push({ path: [name], value: sample(prop) });
  }
  // A list's items are not what a write sends: only the list's own fields count there.
  return out.filter((probe) => probe.path[0] !== 'data');
}

/** writeOnly properties of an operation's request body (any oneOf branch). */
export function writeOnlyNames(operationId: string): string[] {
  const schema = operation(operationId).requestBody?.content['application/json']?.schema;
  const out: PropertyProbe[] = [];
  if (schema !== undefined) collect(schema, 'writeOnly', [], out, 0);
  return out.map((p) => String(p.path[0]));
}

/** `body` with `value` set at `path` (arrays and objects created as needed). */
export function withProperty(
  body: Record<string, unknown>,
  path: Array<string | number>,
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(body);
  let node: Record<string | number, unknown> = copy;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) node[key] = value;
    else {
      node[key] ??= typeof path[i + 1] === 'number' ? [] : {};
      node = node[key] as Record<string | number, unknown>;
    }
  }
  return copy;
}
