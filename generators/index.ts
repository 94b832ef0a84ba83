/**
 * `generate(document, options) → Map<path, text>`: every artifact for one bundled OpenAPI 3.0
 * document (OpenAPI 3.0.3 §4.7.1), in memory. No file system, no process: `scripts/generate.ts`
 * writes the map, the drift check and the tests compare it. The steps are `artifacts.ts`'s.
 */
import type { OpenApiDocument } from '../contract/openapi-document.js';
import {
  artifactFiles,
  type GenerateOptions,
  type GenerateResult,
  planArtifacts,
  routesAndClient,
} from './artifacts.js';
import { generateTypes } from './types.js';

export type { GenerateOptions, GenerateResult, OpenApiDocument };

/**
 * Generates `types.ts`, `routes.ts` and `client.ts` for `document`.
 *
 * @example generate(bundled).files.get('generated/routes.ts')
 */
export function generate(document: unknown, options: GenerateOptions = {}): GenerateResult {
  const plan = planArtifacts(document, options);
  const types = generateTypes(plan.document);
  const files = artifactFiles(plan, types, routesAndClient(plan));
  return { files, operations: plan.operations };
}
