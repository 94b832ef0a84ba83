/**
 * The size bounds a JSON Schema sets (`maxItems`, `maxLength`, `maxProperties`), gathered once
 * from the schema into a tree that a body is checked against in one linear walk, before Ajv
 * runs (docs/design.md#validation-cost). Ajv reporting every error (`allErrors`) compares
 * every pair of a `uniqueItems` array whose items it cannot type (`$ref`'d items) and tries a
 * `pattern` on every string however long; on a body within the schema's bounds that work is
 * bounded by the contract, on a 100,000-item array it is not. So a body over a bound is
 * refused on the bound first.
 *
 * Only what no branch of the schema accepts is refused: under `oneOf`/`anyOf` a bound holds
 * only if every branch that takes the value's type has it (the loosest wins); under `allOf`
 * every bound holds (the tightest wins). Type mismatches, unknown keys and everything else
 * are left to Ajv, whose errors about them are linear in the body.
 */
import type { JsonSchema } from './route-types.js';
import type { SchemaLookup } from './schema-refs.js';

/** What a schema allows of arrays: no arrays at all, or at most `max` items of `items`. */
interface ArrayRule {
  max: number | undefined;
  items: BoundNode;
}

/** What a schema allows of objects. `properties` name the known keys; others follow `rest`. */
interface ObjectRule {
  max: number | undefined;
  properties: ReadonlyMap<string, BoundNode>;
  rest: BoundNode;
}

/** The bounds on a value, one rule per JSON kind a bound can apply to; `null`: none allowed. */
export interface BoundNode {
  array: ArrayRule | null;
  string: { max: number | undefined } | null;
  object: ObjectRule | null;
}

/**
 * A bound a value broke: where (keys and indexes from the root), which keyword, its limit; or,
 * for an object with more keys than its closed schema names (`additionalProperties: false`),
 * the first key it does not name.
 */
export type BoundViolation =
  | {
      path: (string | number)[];
      keyword: 'maxItems' | 'maxLength' | 'maxProperties';
      limit: number;
    }
  | { path: (string | number)[]; keyword: 'additionalProperties'; key: string };

/** Anything goes (its array items and object keys are again anything: it refers to itself). */
const ANY: BoundNode = { array: null, string: { max: undefined }, object: null };
ANY.array = { max: undefined, items: ANY };
ANY.object = { max: undefined, properties: new Map(), rest: ANY };
/** Nothing is valid (`false`, or `additionalProperties: false` for an unknown key). */
const NONE: BoundNode = { array: null, string: null, object: null };

function looser(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : Math.max(a, b);
}

function tighter(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

type Combine = (a: BoundNode, b: BoundNode) => BoundNode;

function combineObjects(a: ObjectRule, b: ObjectRule, node: Combine, limit: typeof looser) {
  const properties = new Map<string, BoundNode>();
  for (const name of new Set([...a.properties.keys(), ...b.properties.keys()])) {
    properties.set(name, node(a.properties.get(name) ?? a.rest, b.properties.get(name) ?? b.rest));
  }
  return { max: limit(a.max, b.max), properties, rest: node(a.rest, b.rest) };
}

/** A value valid under `a` or `b` (`anyOf`, `oneOf`): the looser of each bound. */
function either(a: BoundNode, b: BoundNode): BoundNode {
  if (a === ANY || b === ANY) return ANY;
  if (a === NONE) return b;
  if (b === NONE) return a;
  return {
    array:
      a.array === null || b.array === null
        ? (a.array ?? b.array)
        : { max: looser(a.array.max, b.array.max), items: either(a.array.items, b.array.items) },
    string:
      a.string === null || b.string === null
        ? (a.string ?? b.string)
        : { max: looser(a.string.max, b.string.max) },
    object:
      a.object === null || b.object === null
        ? (a.object ?? b.object)
        : combineObjects(a.object, b.object, either, looser),
  };
}

/** A value valid under `a` and `b` (`allOf`, or a schema's own keywords beside them). */
function both(a: BoundNode, b: BoundNode): BoundNode {
  if (a === ANY) return b;
  if (b === ANY) return a;
  if (a === NONE || b === NONE) return NONE;
  return {
    array:
      a.array === null || b.array === null
        ? null
        : { max: tighter(a.array.max, b.array.max), items: both(a.array.items, b.array.items) },
    string:
      a.string === null || b.string === null ? null : { max: tighter(a.string.max, b.string.max) },
    object:
      a.object === null || b.object === null
        ? null
        : combineObjects(a.object, b.object, both, tighter),
  };
}

const KINDS = ['array', 'string', 'object'] as const;

function typesOf(schema: JsonSchema): Set<string> | undefined {
  const type = schema.type;
  if (type === undefined) return undefined;
  return new Set((Array.isArray(type) ? type : [type]).map(String));
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/**
 * Gathers the bounds of `schema` (following `$ref`s through `lookup`). A schema reached again
 * while it is being gathered (a recursive schema) bounds nothing further down.
 */
export function schemaBounds(schema: unknown, lookup: SchemaLookup): BoundNode {
  const done = new Map<object, BoundNode>();
  const gathering = new Set<object>();

  const gather = (s: unknown): BoundNode => {
    if (s === false) return NONE;
    if (s === null || typeof s !== 'object') return ANY;
    const found = done.get(s);
    if (found !== undefined) return found;
    if (gathering.has(s)) return ANY;
    gathering.add(s);
    const js = s as JsonSchema;
    let node = own(js);
    if (typeof js.$ref === 'string') {
      const target = lookup(js.$ref);
      node = both(node, target === undefined ? ANY : gather(target));
    }
    for (const sub of (js.allOf as unknown[] | undefined) ?? []) node = both(node, gather(sub));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = js[key] as unknown[] | undefined;
      if (!Array.isArray(branches) || branches.length === 0) continue;
      node = both(node, branches.map(gather).reduce(either));
    }
    gathering.delete(s);
    done.set(s, node);
    return node;
  };

  /** The bounds of a schema's own keywords (not its `$ref` or combinators). */
  const own = (js: JsonSchema): BoundNode => {
    const types = typesOf(js);
    const allows = (kind: string) => types === undefined || types.has(kind);
    const items = Array.isArray(js.items) ? ANY : gather(js.items);
    const properties = new Map<string, BoundNode>();
    for (const [name, sub] of Object.entries((js.properties ?? {}) as Record<string, unknown>)) {
      properties.set(name, gather(sub));
    }
    // Keys matching a `patternProperties` pattern are not bounded here (the spec has none).
    const rest = js.patternProperties === undefined ? gather(js.additionalProperties) : ANY;
    const node: BoundNode = {
      array: allows('array') ? { max: num(js.maxItems), items } : null,
      string: allows('string') ? { max: num(js.maxLength) } : null,
      object: allows('object') ? { max: num(js.maxProperties), properties, rest } : null,
    };
    const unbounded =
      KINDS.every((k) => node[k] !== null) &&
      node.array?.max === undefined &&
      node.array?.items === ANY &&
      node.string?.max === undefined &&
      node.object?.max === undefined &&
      properties.size === 0 &&
      rest === ANY;
    return unbounded ? ANY : node;
  };

  return gather(schema);
}

/** Code points of `text` (how JSON Schema counts `maxLength`), counting only up to `limit + 1`. */
function longerThan(text: string, limit: number): boolean {
  // Every code point is one or two UTF-16 units.
  if (text.length <= limit) return false;
  if (text.length > 2 * limit) return true;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++count > limit) return true;
  }
  return false;
}

interface Visit {
  value: unknown;
  node: BoundNode;
  parent: Visit | null;
  key: string | number | null;
}

function pathOf(visit: Visit): (string | number)[] {
  const out: (string | number)[] = [];
  for (let v: Visit | null = visit; v !== null && v.key !== null; v = v.parent) out.push(v.key);
  return out.reverse();
}

/**
 * The first bound `value` breaks (depth first, in document order), or undefined. Linear in the
 * part of the value the schema bounds; iterative, since a recursive schema does not bound depth.
 */
export function findBoundViolation(value: unknown, root: BoundNode): BoundViolation | undefined {
  if (root === ANY) return undefined;
  const stack: Visit[] = [{ value, node: root, parent: null, key: null }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value: v, node } = visit;
    if (node === ANY) continue;
    if (typeof v === 'string') {
      const max = node.string?.max;
      if (max !== undefined && longerThan(v, max)) {
        return { path: pathOf(visit), keyword: 'maxLength', limit: max };
      }
    } else if (Array.isArray(v)) {
      const rule = node.array;
      if (rule === null) continue;
      if (rule.max !== undefined && v.length > rule.max) {
        return { path: pathOf(visit), keyword: 'maxItems', limit: rule.max };
      }
      if (rule.items === ANY) continue;
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i], node: rule.items, parent: visit, key: i });
      }
    } else if (v !== null && typeof v === 'object') {
      const rule = node.object;
      if (rule === null) continue;
      const names = Object.keys(v);
      if (rule.max !== undefined && names.length > rule.max) {
        return { path: pathOf(visit), keyword: 'maxProperties', limit: rule.max };
      }
      // More keys than a closed object names (a body of 80,000 keys): one is unknown, and Ajv
      // would make an error of every one, with every branch of a `oneOf` tried on them all.
      if (rule.rest === NONE && names.length > rule.properties.size) {
        const key = names.find((name) => !rule.properties.has(name)) as string;
        return { path: pathOf(visit), keyword: 'additionalProperties', key };
      }
      for (let i = names.length - 1; i >= 0; i--) {
        const name = names[i] as string;
        const child = rule.properties.get(name) ?? rule.rest;
        if (child === ANY || child === NONE) continue;
        stack.push({
          value: (v as Record<string, unknown>)[name],
          node: child,
          parent: visit,
          key: name,
        });
      }
    }
  }
  return undefined;
}
