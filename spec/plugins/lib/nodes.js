import { relative } from 'node:path';

/**
 * Helpers shared by the Patient-Care lint rules: following `$ref`s across split files and
 * naming nodes so every message says where the problem is.
 */

/** HTTP methods that are operations inside a Path Item (OpenAPI 3.0 §4.7.9). */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Tells whether a node is a Reference Object.
 * @param {unknown} node
 * @returns {node is {$ref: string}}
 */
export function isRef(node) {
  return typeof node === 'object' && node !== null && typeof node.$ref === 'string';
}

/**
 * Follows `$ref`s (also chains of them, across files) from `node`, whose own position is
 * `location`. Returns the target and where it lives, so reports land in the right file.
 * An unresolvable ref yields `node: undefined` (the built-in `no-unresolved-refs` reports it).
 * @param {any} ctx Redocly visitor context
 * @param {unknown} node
 * @param {any} location Redocly Location of `node`
 * @returns {{node: any, location: any, viaRef: boolean}}
 */
export function deref(ctx, node, location) {
  let current = { node, location };
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

/**
 * A stable key for a resolved node's position, used to report a shared component once.
 * @param {any} location
 * @returns {string}
 */
export function locationKey(location) {
  return location.absolutePointer;
}

/**
 * Human form of a location: `components.responses.BadRequest` for a JSON pointer into the
 * document's components or paths, otherwise the file too, e.g. `spec/responses/forbidden.yaml`
 * or `spec/shared.yaml#Forbidden`, for nodes that live in a split file.
 * @param {any} location
 * @returns {string}
 */
export function pointerLabel(location) {
  const parts = String(location.pointer)
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] === 'components' || parts[0] === 'paths') return parts.join('.');
  const file = relative(process.cwd(), String(location.source.absoluteRef));
  return parts.length > 0 ? `${file}#${parts.join('.')}` : file;
}

/**
 * Names an operation the way a reader finds it: `POST /v1/patients (createPatient)`.
 * @param {string} method
 * @param {string} path
 * @param {any} operation
 * @returns {string}
 */
export function operationLabel(method, path, operation) {
  const id =
    operation && typeof operation.operationId === 'string' ? ` (${operation.operationId})` : '';
  return `${method.toUpperCase()} ${path}${id}`;
}

/**
 * Collects the resolved parameters that apply to an operation: its own plus its Path Item's
 * (an operation-level parameter overrides a path-level one with the same name and `in`).
 * @param {any} ctx
 * @param {any} operation resolved Operation node
 * @param {any} operationLocation
 * @param {any} pathItem resolved Path Item node
 * @param {any} pathItemLocation
 * @returns {Array<{node: any, location: any, viaRef: boolean}>}
 */
export function effectiveParameters(ctx, operation, operationLocation, pathItem, pathItemLocation) {
  const own = resolveList(ctx, operation?.parameters, operationLocation.child(['parameters']));
  const inherited = resolveList(ctx, pathItem?.parameters, pathItemLocation.child(['parameters']));
  const ownKeys = new Set(own.map((p) => paramKey(p.node)));
  return [...own, ...inherited.filter((p) => !ownKeys.has(paramKey(p.node)))];
}

/**
 * @param {any} ctx
 * @param {unknown} list
 * @param {any} listLocation
 */
function resolveList(ctx, list, listLocation) {
  if (!Array.isArray(list)) return [];
  return list
    .map((item, index) => deref(ctx, item, listLocation.child([index])))
    .filter((p) => p.node && typeof p.node === 'object');
}

/** @param {any} param */
function paramKey(param) {
  return `${String(param?.in)}:${String(param?.name).toLowerCase()}`;
}

/**
 * Visitor skeleton for rules about operations under `paths` (not `x-webhooks`: webhook
 * operations describe requests we send, so scopes, error envelopes and our request headers
 * do not apply to them).
 * @param {(input: {operation: any, ctx: any, method: string, path: string, label: string,
 *   pathItem: any, pathItemLocation: any}) => void} check
 */
export function pathOperationsVisitor(check) {
  /** @type {{path: string, node: any, location: any} | undefined} */
  let currentPathItem;
  return {
    Paths: {
      PathItem: {
        enter(/** @type {any} */ pathItem, /** @type {any} */ ctx) {
          currentPathItem = { path: String(ctx.key), node: pathItem, location: ctx.location };
        },
        Operation: {
          enter(/** @type {any} */ operation, /** @type {any} */ ctx) {
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
 * @param {any} operation
 */
export function isPublicOperation(operation) {
  return Array.isArray(operation?.security) && operation.security.length === 0;
}
