/**
 * The one type of an OpenAPI 3.0.x document (OpenAPI 3.0.3 §4.7.1) in this project, as the
 * model reads it: already bundled, so every `$ref` is internal (`#/components/...`).
 */
import { DocumentError } from './errors.js';
import { getAtPointer } from './pointer.js';

/** The parts of an OpenAPI 3.0 document the generators read; everything else passes through. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown> | undefined>;
  [key: string]: unknown;
}

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

/**
 * Follows internal `$ref`s (Reference Object, §4.7.23) until a non-reference node is reached.
 * Returns the node and the pointer it was found at, so errors can name it.
 */
export function resolveRef(
  document: OpenApiDocument,
  node: unknown,
  pointer: string,
): { node: Record<string, unknown>; pointer: string } {
  let current = node;
  let at = pointer;
  const seen = new Set<string>();
  while (isReference(current)) {
    const ref = current.$ref;
    if (!ref.startsWith('#')) {
      throw new DocumentError(at, `External reference ${ref} was not bundled.`);
    }
    if (seen.has(ref)) throw new DocumentError(at, `Reference cycle through ${ref}.`);
    seen.add(ref);
    current = getAtPointer(document, ref);
    if (current === undefined) throw new DocumentError(at, `Reference ${ref} points at nothing.`);
    at = ref;
  }
  if (current === null || typeof current !== 'object') {
    throw new DocumentError(at, 'Expected an object here.');
  }
  return { node: current as Record<string, unknown>, pointer: at };
}

/**
 * Follows internal `$ref`s leniently: the object reached, or `undefined` for a non-object, an
 * external or dangling reference, or a cycle. For readers that skip what they cannot use.
 */
export function tryResolveRef(
  document: unknown,
  node: unknown,
): Record<string, unknown> | undefined {
  let current = node;
  for (let hops = 0; hops < 32; hops++) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!isReference(current)) return current as Record<string, unknown>;
    if (!current.$ref.startsWith('#')) return undefined;
    current = getAtPointer(document, current.$ref);
  }
  return undefined;
}

/** True for a Reference Object (`{ $ref: string }`). */
export function isReference(node: unknown): node is { $ref: string } {
  return (
    node !== null &&
    typeof node === 'object' &&
    typeof (node as Record<string, unknown>).$ref === 'string'
  );
}
