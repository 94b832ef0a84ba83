/**
 * Reading a raw OpenAPI 3.0.x document (its type, `OpenApiDocument`, is in
 * `contract/openapi-document.ts`): the version check and the one `$ref` follower.
 */

import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { getAtPointer } from '../../contract/pointer.js';
import { DocumentError } from './errors.js';

/**
 * Checks that `document` is OpenAPI 3.0.x. OpenAPI 3.1 and Swagger 2.0 are refused with an
 * error naming the version, because 3.1 schemas are JSON Schema 2020-12 (no `nullable`, other
 * `exclusiveMinimum`) and 2.0 has no `components`: converting either silently would be wrong.
 */
export function assertOpenApi30(document: unknown): asserts document is OpenApiDocument {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new DocumentError(
      '#',
      'The document is not an object: expected an OpenAPI 3.0 document.',
    );
  }
  const record = document as Record<string, unknown>;
  if (record.swagger !== undefined) {
    throw new DocumentError(
      '#/swagger',
      `Unsupported version: Swagger ${String(record.swagger)}. Only OpenAPI 3.0.x is supported; convert the document to OpenAPI 3.0 first.`,
    );
  }
  const version = record.openapi;
  if (typeof version !== 'string') {
    throw new DocumentError(
      '#',
      'The document has no `openapi` version field: expected OpenAPI 3.0.x.',
    );
  }
  if (!/^3\.0\.\d+$/.test(version)) {
    throw new DocumentError(
      '#/openapi',
      `Unsupported version: OpenAPI ${version}. Only OpenAPI 3.0.x is supported.`,
    );
  }
  if (record.paths === null || typeof record.paths !== 'object') {
    throw new DocumentError('#/paths', 'The document has no `paths` object.');
  }
}

/** Where following a node's `$ref`s ended (`followRef`). */
export interface RefTarget {
  /** The last node reached: the target, or the Reference Object that could not be followed. */
  node: unknown;
  /** Its pointer: the last `$ref` followed, or the pointer given when none was. */
  pointer: string;
  /** Why following stopped short of a non-reference node; absent when it did not. */
  stop?: { reason: 'external' | 'cycle' | 'dangling'; ref: string };
}

/**
 * The one `$ref` follower for raw documents: follows internal `$ref`s (Reference Object,
 * §4.7.23) until a non-reference node, and says where and why it stopped. The strict
 * `resolveRef`, the lenient `tryResolveRef` and the tolerant `locate` are built on it.
 * (Converted JSON Schemas have theirs: `contract/schema-refs.ts`.)
 */
export function followRef(document: unknown, node: unknown, pointer: string): RefTarget {
  let current = node;
  let at = pointer;
  const seen = new Set<string>();
  while (isReference(current)) {
    const ref = current.$ref;
    if (!ref.startsWith('#'))
      return { node: current, pointer: at, stop: { reason: 'external', ref } };
    if (seen.has(ref)) return { node: current, pointer: at, stop: { reason: 'cycle', ref } };
    seen.add(ref);
    const target = getAtPointer(document, ref);
    if (target === undefined)
      return { node: current, pointer: at, stop: { reason: 'dangling', ref } };
    current = target;
    at = ref;
  }
  return { node: current, pointer: at };
}

const STOP_MESSAGES = {
  external: (ref: string) => `External reference ${ref} was not bundled.`,
  cycle: (ref: string) => `Reference cycle through ${ref}.`,
  dangling: (ref: string) => `Reference ${ref} points at nothing.`,
} as const;

/**
 * Follows internal `$ref`s until a non-reference node is reached, strictly: a reference that
 * cannot be followed, or a target that is not an object, is a `DocumentError`. Returns the node
 * and the pointer it was found at, so errors can name it.
 */
export function resolveRef(
  document: unknown,
  node: unknown,
  pointer: string,
): { node: Record<string, unknown>; pointer: string } {
  const target = followRef(document, node, pointer);
  if (target.stop) {
    throw new DocumentError(target.pointer, STOP_MESSAGES[target.stop.reason](target.stop.ref));
  }
  if (target.node === null || typeof target.node !== 'object') {
    throw new DocumentError(target.pointer, 'Expected an object here.');
  }
  return { node: target.node as Record<string, unknown>, pointer: target.pointer };
}

/**
 * Follows internal `$ref`s leniently: the object reached, or `undefined` for a non-object, an
 * external or dangling reference, or a cycle. For readers that skip what they cannot use.
 */
export function tryResolveRef(
  document: unknown,
  node: unknown,
): Record<string, unknown> | undefined {
  const target = followRef(document, node, '#');
  const reached = target.node;
  if (target.stop || reached === null || typeof reached !== 'object' || Array.isArray(reached)) {
    return undefined;
  }
  return reached as Record<string, unknown>;
}

/** A node of a document and its JSON pointer. */
export interface NodeAt {
  node: unknown;
  pointer: string;
}

/**
 * Follows a chain of internal `$ref`s to the node they name (through `followRef`), tolerantly:
 * a ref loop (`A → B → A`), an external or a dangling ref stops at the last node reached. The
 * pointer keeps the form it was given in: a URI fragment (`#/…`, as the strict reader and Ajv
 * name nodes) stays one; a plain pointer (`/…`, as the breaking-change engine reports changes)
 * comes back percent-decoded (`%7Bid%7D` → `{id}`) when that is valid.
 */
export function locate(document: unknown, at: NodeAt): NodeAt {
  // '' marks "no `$ref` followed": a followed one's pointer is the `$ref` itself (`#/…`).
  const target = followRef(document, at.node, '');
  if (target.pointer === '') return at;
  if (at.pointer.startsWith('#')) return { node: target.node, pointer: target.pointer };
  return { node: target.node, pointer: decoded(target.pointer.slice(1)) };
}

function decoded(pointer: string): string {
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}

/** Narrows unknown data to a plain object (not an array): what the readers treat as present. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** True for a Reference Object (`{ $ref: string }`). */
export function isReference(node: unknown): node is { $ref: string } {
  return (
    node !== null &&
    typeof node === 'object' &&
    typeof (node as Record<string, unknown>).$ref === 'string'
  );
}
