/**
 * `generate(document, options) → Map<path, text>`: every artifact for one bundled OpenAPI 3.0
 * document (OpenAPI 3.0.3 §4.7.1), in memory. No file system, no process: `scripts/generate.ts`
 * writes the map, the drift check and the tests compare it.
 */
import { posix } from 'node:path';
import type { OpenApiDocument } from '../contract/openapi-document.js';
import { assertOpenApi30 } from '../tooling/openapi/document.js';
import { listOperations, type OperationModel } from '../tooling/openapi/operations.js';
import { generateClient } from './client.js';
import { headerLine } from './header.js';
import { generateRoutes } from './routes.js';
import { generateTypes } from './types.js';

export type { OpenApiDocument };

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

const ROUTE_TYPES = 'contract/route-types.ts';
const CLIENT_RUNTIME = 'client/index.ts';

/**
 * Generates `types.ts`, `routes.ts` and `client.ts` for `document`.
 *
 * @example generate(bundled).files.get('generated/routes.ts')
 */
export function generate(document: unknown, options: GenerateOptions = {}): GenerateResult {
  assertOpenApi30(document);
  const outDir = posix.normalize(options.outDir ?? 'generated');
  const header = headerLine(options.remakeCommand);
  const operations = listOperations(document);
  const files = new Map<string, string>();
  const typesImport = './types.js';
  files.set(posix.join(outDir, 'types.ts'), `${header}\n${generateTypes(document)}`);
  const routes = generateRoutes(document, operations, {
    routeTypesImport: importPath(outDir, ROUTE_TYPES),
    typesImport,
  });
  files.set(posix.join(outDir, 'routes.ts'), `${header}\n${routes}`);
  const client = generateClient(
    document,
    { header, typesImport, runtimeImport: importPath(outDir, CLIENT_RUNTIME) },
    operations,
  );
  files.set(posix.join(outDir, 'client.ts'), client.endsWith('\n') ? client : `${client}\n`);
  return { files, operations };
}

/** The import specifier of repository file `target` from a module in `fromDir`. */
export function importPath(fromDir: string, target: string): string {
  const relative = posix.relative(fromDir, target).replace(/\.ts$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
