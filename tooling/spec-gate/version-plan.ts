/**
 * What a new dated version has to say (docs/design.md#versioning), worked out from the breaking
 * changes between the latest released contract and the working spec: the one computation behind
 * `npm run spec:version` (which writes it as a module) and the dev loop's line on each save
 * (which prints its size). Pure: documents in, plan out.
 *
 * - A request-side change (a bound, an enum, `required`, a format narrowed) is a document edit
 *   restoring what the release said, and nothing else: a request pinned to the older version is
 *   validated by its own document before it is migrated up.
 * - A response, event or webhook change gets the same edits (the older document) plus a
 *   converter stub per API object type, event type or the error envelope it reaches, marked
 *   `todo`: the data must really be converted, which only the owner can write, and the gate
 *   fails until they have.
 */

import { HTTP_METHODS } from '../../contract/openapi-document.js';
import { appendPointer, getAtPointer, parsePointer, toPointer } from '../../contract/pointer.js';
import type { Json, JsonObject } from '../../contract/version-change.js';
import { diffSpecs } from '../breaking/diff-specs.js';
import type { Change, OpenApiDocument } from '../breaking/types.js';

/** One document edit, by name, as a module states it. */
export interface PlannedEdit {
  target: { schema: string } | { parameter: string } | { operation: string };
  at?: string;
  /** The node's value in the release; absent with `didNotExist`. */
  was?: Json;
  didNotExist?: true;
}

export interface VersionPlan {
  /** The breaking changes, as the gate reports them. */
  changes: Change[];
  edits: PlannedEdit[];
  /** Converter stubs by group (`objects` by object type, `events` by event type, `errors`). */
  converters: { group: 'objects' | 'events' | 'errors'; name: string; note: string }[];
  /** What could not be written as an edit by name; the module lists them as `todo`. */
  manual: string[];
}

/** Keywords that only document: the older text is the owner's to restore, not the contract's. */
const DOCS = new Set(['description', 'summary', 'example', 'examples', 'title', 'externalDocs']);

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Which side of the wire a change is on: requests are what clients send. */
export function changeSide(change: Change): 'request' | 'response' | 'event' {
  const operations = change.operations ?? (change.operation ? [change.operation] : []);
  if (
    change.pointer.startsWith('/x-webhooks/') ||
    change.pointer.startsWith('/webhooks/') ||
    (operations.length > 0 && operations.every((op) => op.startsWith('webhook ')))
  )
    return 'event';
  if (
    change.message.startsWith('request') ||
    /^(parameter|request-body)/.test(change.kind) ||
    /\/(parameters|requestBody)(\/|$)/.test(change.pointer)
  )
    return 'request';
  return 'response';
}

/** The leaves where `base` and `head` differ below `pointer` (arrays are leaves), docs aside. */
function differences(pointer: string, base: unknown, head: unknown): PlannedLeaf[] {
  if (base === undefined && head === undefined) return [];
  if (base === undefined) return [{ pointer, didNotExist: true }];
  if (!isObject(base) || !isObject(head))
    return same(base, head) ? [] : [{ pointer, was: base as Json }];
  const leaves: PlannedLeaf[] = [];
  for (const key of new Set([...Object.keys(base), ...Object.keys(head)])) {
    if (DOCS.has(key) || same(base[key], head[key])) continue;
    leaves.push(...differences(appendPointer(pointer, key), base[key], head[key]));
  }
  return leaves;
}
interface PlannedLeaf {
  pointer: string;
  was?: Json;
  didNotExist?: true;
}

/** The operation whose Path Item method `pointer` is under, by `operationId`. */
function operationAt(document: OpenApiDocument, tokens: string[]): string | undefined {
  const [, path, method] = tokens;
  if (
    path === undefined ||
    method === undefined ||
    !(HTTP_METHODS as readonly string[]).includes(method)
  )
    return undefined;
  const operation = getAtPointer(document, toPointer(['paths', path, method]));
  return isObject(operation) && typeof operation.operationId === 'string'
    ? operation.operationId
    : undefined;
}

/** A leaf as an edit by name, or undefined when nothing nameable holds it. */
function nameLeaf(
  document: OpenApiDocument,
  released: OpenApiDocument,
  leaf: PlannedLeaf,
): PlannedEdit | undefined {
  const tokens = parsePointer(leaf.pointer);
  let target: PlannedEdit['target'] | undefined;
  let inside: string[] = [];
  if (tokens[0] === 'components' && tokens[1] === 'schemas' && tokens[2] !== undefined) {
    target = { schema: tokens[2] };
    inside = tokens.slice(3);
  } else if (tokens[0] === 'components' && tokens[1] === 'parameters' && tokens[2] !== undefined) {
    target = { parameter: tokens[2] };
    inside = tokens.slice(3);
  } else if (tokens[0] === 'paths') {
    const operation = operationAt(document, tokens);
    if (operation === undefined) return undefined;
    target = { operation };
    inside = tokens.slice(3);
  }
  if (target === undefined) return undefined;
  // An array position is no name: the whole array is restored instead.
  const position = inside.findIndex((t, i) => /^\d+$/.test(t) && inside[i - 1] !== 'responses');
  if (position >= 0) {
    const cut = tokens.length - inside.length + position;
    inside = inside.slice(0, position);
    const was = getAtPointer(released, toPointer(tokens.slice(0, cut))) as Json | undefined;
    if (inside.length === 0 || was === undefined) return undefined;
    return { target, at: toPointer(inside).slice(1), was };
  }
  if (inside.length === 0 && leaf.didNotExist) return { target, didNotExist: true };
  return {
    target,
    ...(inside.length > 0 ? { at: toPointer(inside).slice(1) } : {}),
    ...(leaf.didNotExist ? { didNotExist: true as const } : { was: leaf.was }),
  };
}

/** Schemas whose `$ref` closure reaches `name`, with their API object type (`object` enum). */
function objectTypesReaching(document: OpenApiDocument, name: string): string[] {
  const schemas = (document.components as { schemas?: Record<string, unknown> } | undefined)
    ?.schemas;
  if (!isObject(schemas)) return [];
  const refs = new Map<string, Set<string>>();
  const collect = (node: unknown, into: Set<string>) => {
    if (Array.isArray(node)) for (const item of node) collect(item, into);
    else if (isObject(node)) {
      for (const [key, child] of Object.entries(node)) {
        if (
          key === '$ref' &&
          typeof child === 'string' &&
          child.startsWith('#/components/schemas/')
        )
          into.add(parsePointer(child.slice(1))[2] ?? '');
        else collect(child, into);
      }
    }
  };
  for (const [schema, body] of Object.entries(schemas)) {
    const set = new Set<string>();
    collect(body, set);
    refs.set(schema, set);
  }
  const reaches = (from: string, seen = new Set<string>()): boolean => {
    if (from === name) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return [...(refs.get(from) ?? [])].some((next) => reaches(next, seen));
  };
  const types: string[] = [];
  for (const [schema, body] of Object.entries(schemas)) {
    const type = isObject(body) && isObject(body.properties) ? body.properties.object : undefined;
    const values = isObject(type) && Array.isArray(type.enum) ? type.enum : [];
    if (values.length === 1 && typeof values[0] === 'string' && reaches(schema))
      types.push(values[0]);
  }
  return types.sort();
}

/**
 * The plan for a new version from `released` (the latest released contract) and `derived` (the
 * working spec as the current modules derive it for that release's date): empty when the
 * modules already cover every breaking change.
 */
export function planVersion(released: OpenApiDocument, derived: OpenApiDocument): VersionPlan {
  const changes = diffSpecs(released, derived).filter((c) => c.breaking);
  const edits = new Map<string, PlannedEdit>();
  const converters = new Map<string, VersionPlan['converters'][number]>();
  const manual: string[] = [];
  for (const change of changes) {
    const side = changeSide(change);
    const leaves = differences(
      change.pointer,
      getAtPointer(released, change.pointer),
      getAtPointer(derived, change.pointer),
    );
    for (const leaf of leaves) {
      const edit = nameLeaf(derived, released, leaf);
      if (edit === undefined) {
        manual.push(
          `restore ${leaf.pointer} as released (no schema, parameter or operation names it)`,
        );
        continue;
      }
      edits.set(JSON.stringify([edit.target, edit.at ?? '']), edit);
    }
    if (side === 'request') continue;
    const note = `${change.kind} ${change.pointer}: ${change.message}`;
    if (side === 'event') {
      for (const op of change.operations ?? []) {
        if (!op.startsWith('webhook ')) continue;
        const name = op.slice('webhook '.length);
        converters.set(`events|${name}`, { group: 'events', name, note });
      }
      continue;
    }
    const tokens = parsePointer(change.pointer);
    const schema = tokens[0] === 'components' && tokens[1] === 'schemas' ? tokens[2] : undefined;
    if (schema === 'Error' || schema === 'ErrorCode') {
      converters.set('errors|', { group: 'errors', name: '', note });
      continue;
    }
    const types = schema === undefined ? [] : objectTypesReaching(derived, schema);
    if (types.length === 0) manual.push(`convert responses for ${note}`);
    for (const name of types) converters.set(`objects|${name}`, { group: 'objects', name, note });
  }
  return { changes, edits: [...edits.values()], converters: [...converters.values()], manual };
}

/** `1 document edit, 2 converters to write` — the plan's size, for one line. */
export function describePlan(plan: VersionPlan): string {
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const parts = [count(plan.edits.length, 'document edit')];
  const todo = plan.converters.length + plan.manual.length;
  if (todo > 0) parts.push(`${count(todo, 'TODO')} for you (converters)`);
  return parts.join(' + ');
}
