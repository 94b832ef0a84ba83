/**
 * The versioning step of `/v1` routes (docs/design.md#versioning), registered for `/v1` only:
 * the FHIR face has no dated versions and never passes through it.
 *
 * A request pinned to an older version V is judged by V's own document — its parameters,
 * bounds and bodies, from V's route table (`generated/versions/V/routes.ts`, listed in `generated/versions/index.ts`, derived from the
 * modules by `npm run generate`) — then migrated up by the modules' request converters, then
 * handled; its answer is rendered back in V. So a document edit on the request side protects
 * V's clients by itself; converters are left for what a schema cannot say. V's validators are
 * built the first time a request of V reaches the route, then reused: a version nobody uses
 * costs nothing, and the per-request cost is a map lookup (`npm run bench:versions`).
 */
import type { RouteDefinition } from '../../contract/route-types.js';
import { renderer, upgradeRequest, versions } from '../versioning/index.js';
import type { Json } from '../versioning/version-change.js';
import {
  type ComponentSchemas,
  compileRouteValidator,
  createValidators,
  type RequestParts,
  type RouteValidator,
  type Validators,
} from './validation.js';

/** One version's route table: what its document says each operation takes. */
export interface VersionTable {
  routes: readonly RouteDefinition[];
  componentSchemas: ComponentSchemas;
}

/** Where an older version's table comes from (the generated one, or the dev loop's). */
export type VersionTableSource = (version: string) => Promise<VersionTable>;

/** The step as the route registration uses it. */
export interface VersionStep {
  /** The latest version: requests in it are validated by the route's own validator. */
  readonly latest: string;
  /**
   * Validates `parts` against `version`'s document, then migrates them up to the latest (in
   * place for `query` and `body`). Synchronous once `version`'s validator is built.
   */
  accept(route: RouteDefinition, version: string, parts: RequestParts): void | Promise<void>;
  /** A reply body (a value, or JSON text as replays are) rendered in `version`. */
  out(version: string): (body: unknown) => unknown;
}

const sameBody = (body: unknown): unknown => body;

/** The generated route table of an older version (`npm run generate` writes one per version). */
export const generatedVersionTable: VersionTableSource = async (version) => {
  const { versionRouteTables } = await import('../../generated/versions/index.js');
  const load = versionRouteTables[version];
  if (load === undefined) {
    throw new Error(`no generated route table for ${version}; run npm run generate`);
  }
  const table = await load();
  return { routes: table.routes, componentSchemas: table.componentSchemas };
};

/** The versioning step; `source` gives each older version's table when first needed. */
export function createVersionStep(source: VersionTableSource = generatedVersionTable): VersionStep {
  const tables = new Map<string, Promise<{ table: VersionTable; validators: Validators }>>();
  // Per version, per operation: built once, on the first request that needs it.
  const compiled = new Map<string, Map<string, RouteValidator>>();

  const tableOf = (version: string) => {
    let found = tables.get(version);
    if (found === undefined) {
      found = source(version).then((table) => ({
        table,
        validators: createValidators(table.componentSchemas),
      }));
      tables.set(version, found);
    }
    return found;
  };

  const build = async (version: string, operationId: string): Promise<RouteValidator> => {
    const { table, validators } = await tableOf(version);
    const route = table.routes.find((r) => r.operationId === operationId);
    if (route === undefined) {
      throw new Error(`version ${version} has no operation ${operationId} in its route table`);
    }
    const validate = compileRouteValidator(route, validators);
    let forVersion = compiled.get(version);
    if (forVersion === undefined) {
      forVersion = new Map();
      compiled.set(version, forVersion);
    }
    forVersion.set(operationId, validate);
    return validate;
  };

  const upgrade = (version: string, operationId: string, parts: RequestParts): void => {
    const up = upgradeRequest(versions, version, operationId, {
      query: parts.query,
      body: parts.body,
    });
    parts.query = up.query;
    parts.body = up.body;
  };

  return {
    latest: versions.latest,
    accept(route, version, parts) {
      const validate = compiled.get(version)?.get(route.operationId);
      if (validate !== undefined) {
        validate(parts);
        upgrade(version, route.operationId, parts);
        return;
      }
      return build(version, route.operationId).then((built) => {
        built(parts);
        upgrade(version, route.operationId, parts);
      });
    },
    out(version) {
      if (version === versions.latest) return sameBody;
      return (body) =>
        body === undefined
          ? body
          : typeof body === 'string'
            ? renderer.renderTextIn(version, body)
            : renderer.renderIn(version, body as Json);
    },
  };
}
