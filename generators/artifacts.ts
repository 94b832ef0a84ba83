/**
 * The artifacts of one bundled OpenAPI 3.0 document (OpenAPI 3.0.3 §4.7.1) in steps: the plan
 * (the document checked, its operations listed), `routes.ts` and `client.ts` from the plan, and
 * the files in their order once `types.ts`'s text is there. `generate()` (index.ts) runs the
 * steps in one go; `npm run generate` makes the types in a worker thread
 * (tooling/generate/types-thread.ts) while this thread makes the rest, so this module never
 * loads openapi-typescript or TypeScript. Pure: no file system, no process.
 */
import { posix } from 'node:path';
import type { OpenApiDocument } from '../contract/openapi-document.js';
import { assertOpenApi30 } from '../tooling/openapi/document.js';
import { listOperations, type OperationModel } from '../tooling/openapi/operations.js';
import { generateClient } from './client.js';
import { headerLine } from './header.js';
import { generateRoutes } from './routes.js';

export interface GenerateOptions {
  /** Folder of the artifacts, relative to the repository root. Default `generated`. */
  outDir?: string;
  /** The command that remakes these files, written into the header. Default `npm run generate`. */
  remakeCommand?: string;
}

export interface GenerateResult {
  /** Repository-relative path → file text. */
  files: Map<string, string>;
  operations: OperationModel[];
}

/** What every artifact of a document starts from. */
export interface ArtifactPlan {
  document: OpenApiDocument;
  outDir: string;
  header: string;
  operations: OperationModel[];
}

const ROUTE_TYPES = 'contract/route-types.ts';
const CLIENT_RUNTIME = 'client/index.ts';
const TYPES_IMPORT = './types.js';

/**
 * Checks `document` and lists its operations. Throws `DocumentError` for what the generators
 * refuse, before any artifact is made.
 */
export function planArtifacts(document: unknown, options: GenerateOptions = {}): ArtifactPlan {
  assertOpenApi30(document);
  return {
    document,
    outDir: posix.normalize(options.outDir ?? 'generated'),
    header: headerLine(options.remakeCommand),
    operations: listOperations(document),
  };
}

/** `routes.ts` and `client.ts` of `plan`: repository-relative path → text, in that order. */
export function routesAndClient(plan: ArtifactPlan): [string, string][] {
  const { document, outDir, header, operations } = plan;
  const routes = generateRoutes(document, operations, {
    routeTypesImport: importPath(outDir, ROUTE_TYPES),
    typesImport: TYPES_IMPORT,
  });
  const client = generateClient(
    document,
    { header, typesImport: TYPES_IMPORT, runtimeImport: importPath(outDir, CLIENT_RUNTIME) },
    operations,
  );
  return [
    [posix.join(outDir, 'routes.ts'), `${header}\n${routes}`],
    [posix.join(outDir, 'client.ts'), client.endsWith('\n') ? client : `${client}\n`],
  ];
}

/**
 * Every artifact of `plan`: `types.ts` (its text made by `generateTypes`, without the header),
 * then `rest` (what {@link routesAndClient} made).
 */
export function artifactFiles(
  plan: ArtifactPlan,
  types: string,
  rest: readonly [string, string][],
): Map<string, string> {
  return new Map([[posix.join(plan.outDir, 'types.ts'), `${plan.header}\n${types}`], ...rest]);
}

/** The import specifier of repository file `target` from a module in `fromDir`. */
export function importPath(fromDir: string, target: string): string {
  const relative = posix.relative(fromDir, target).replace(/\.ts$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
