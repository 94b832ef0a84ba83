import { relative } from 'node:path';
import type { Location, UserContext } from '@redocly/openapi-core';
import { parsePointer } from '../../../contract/pointer.js';

/**
 * Helpers shared by the Patient-Care lint rules: following `$ref`s across split files and
 * naming nodes so every message says where the problem is.
 */

/** A spec node as the rules read it: parsed YAML, shape not yet checked. */
// biome-ignore lint/suspicious/noExplicitAny: YAML nodes are checked field by field.
export type SpecNode = any;

/** A node reached through zero or more `$ref`s, with where it lives. */
export interface Resolved {
  node: SpecNode;
  location: Location;
  viaRef: boolean;
}

/** What `pathOperationsVisitor` hands each check. */
export interface OperationInput {
  operation: SpecNode;
  ctx: UserContext;
  method: string;
  path: string;
  label: string;
  pathItem: SpecNode;
  pathItemLocation: Location;
}

/** Tells whether a node is a Reference Object. */
export function isRef(node: unknown): node is { $ref: string } {
  return (
    typeof node === 'object' &&
    node !== null &&
    typeof (node as { $ref?: unknown }).$ref === 'string'
  );
}

/**
 * Follows `$ref`s (also chains of them, across files) from `node`, whose own position is
 * `location`. Returns the target and where it lives, so reports land in the right file.
 * An unresolvable ref yields `node: undefined` (the built-in `no-unresolved-refs` reports it).
 */
export function deref(ctx: UserContext, node: unknown, location: Location): Resolved {
  let current: { node: unknown; location: Location } = { node, location };
  let viaRef = false;
  // A bound on hops, so a ref cycle cannot hang the linter.
  for (let hop = 0; hop < 32 && isRef(current.node); hop++) {
    const resolved = ctx.resolve(current.node, current.location.source.absoluteRef);
    if (!resolved.location || resolved.node === undefined) {
      return { node: undefined, location: current.location, viaRef: true };
    }
    current = { node: resolved.node, location: resolved.location };
    viaRef = true;
  }
  return { ...current, viaRef };
}

/** A stable key for a resolved node's position, used to report a shared component once. */
export function locationKey(location: Location): string {
  return location.absolutePointer;
}

/**
 * Human form of a location: `components.responses.BadRequest` for a JSON pointer into the
 * document's components or paths, otherwise the file too, e.g. `spec/responses/forbidden.yaml`
 * or `spec/shared.yaml#Forbidden`, for nodes that live in a split file.
 */
export function pointerLabel(location: Location): string {
  const parts = parsePointer(String(location.pointer));
  if (parts[0] === 'components' || parts[0] === 'paths') return parts.join('.');
  const file = relative(process.cwd(), String(location.source.absoluteRef));
  return parts.length > 0 ? `${file}#${parts.join('.')}` : file;
}

/** Names an operation the way a reader finds it: `POST /v1/patients (createPatient)`. */
export function operationLabel(method: string, path: string, operation: SpecNode): string {
  const id =
    operation && typeof operation.operationId === 'string' ? ` (${operation.operationId})` : '';
  return `${method.toUpperCase()} ${path}${id}`;
}

/**
 * The resolved parameters that apply to an operation: its own plus its Path Item's (an
 * operation-level parameter overrides a path-level one with the same name and `in`).
 */
export function effectiveParameters(
  ctx: UserContext,
  operation: SpecNode,
  operationLocation: Location,
  pathItem: SpecNode,
  pathItemLocation: Location,
): Resolved[] {
  const own = resolveList(ctx, operation?.parameters, operationLocation.child(['parameters']));
  const inherited = resolveList(ctx, pathItem?.parameters, pathItemLocation.child(['parameters']));
  const ownKeys = new Set(own.map((p) => paramKey(p.node)));
  return [...own, ...inherited.filter((p) => !ownKeys.has(paramKey(p.node)))];
}

function resolveList(ctx: UserContext, list: unknown, listLocation: Location): Resolved[] {
  if (!Array.isArray(list)) return [];
  return list
    .map((item, index) => deref(ctx, item, listLocation.child([index])))
    .filter((p) => p.node && typeof p.node === 'object');
}

function paramKey(param: SpecNode): string {
  return `${String(param?.in)}:${String(param?.name).toLowerCase()}`;
}

/**
 * Visitor skeleton for rules about operations under `paths` (not `x-webhooks`: webhook
 * operations describe requests we send, so scopes, error envelopes and our request headers
 * do not apply to them).
 */
export function pathOperationsVisitor(check: (input: OperationInput) => void) {
  let currentPathItem: { path: string; node: SpecNode; location: Location } | undefined;
  return {
    Paths: {
      PathItem: {
        enter(pathItem: SpecNode, ctx: UserContext) {
          currentPathItem = { path: String(ctx.key), node: pathItem, location: ctx.location };
        },
        Operation: {
          enter(operation: SpecNode, ctx: UserContext) {
            if (!currentPathItem) return;
            const method = String(ctx.key);
            const { path, node, location } = currentPathItem;
            check({
              operation,
              ctx,
              method,
              path,
              label: operationLabel(method, path, operation),
              pathItem: node,
              pathItemLocation: location,
            });
          },
        },
      },
    },
  };
}

/**
 * Whether an operation is public: `security: []` (OpenAPI's "no authentication"). Public
 * operations (health probes) take no API key, so key kinds, scopes, 401 and 403 do not apply.
 */
export function isPublicOperation(operation: SpecNode): boolean {
  return Array.isArray(operation?.security) && operation.security.length === 0;
}
