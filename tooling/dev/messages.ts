/**
 * Messages between the dev loop (the toolchain process) and the service it runs (a child
 * process, restarted on code changes). The toolchain sends a contract as a candidate as soon
 * as it is generated; the service builds it while the lint runs, and swaps it in on `commit`.
 */

import type { OpenApiDocument } from '../../contract/openapi-document.js';
import type { RouteDefinition } from '../../contract/route-types.js';
import type { ComponentSchemas } from '../../server/http/validation.js';

/** One version of the spec, as the service serves it. */
export interface ContractPayload {
  /** Content hash of `document`. */
  id: string;
  routes: readonly RouteDefinition[];
  componentSchemas: ComponentSchemas;
  /** The bundled document, served at `/openapi.*` and rendered at `/docs`. */
  document: OpenApiDocument;
}

/** Why the spec on disk is not the one served; shown as a banner on `/docs`. */
export interface ProblemPayload {
  summary: string;
  /** `file:line:col  rule  message`, one per finding. */
  lines: string[];
}

export type ToService =
  | { type: 'state'; contract: ContractPayload | null; problem: ProblemPayload | null }
  | { type: 'candidate'; contract: ContractPayload }
  | { type: 'commit'; id: string }
  | { type: 'discard'; id: string }
  | { type: 'problem'; problem: ProblemPayload | null };

export type FromService =
  | { type: 'hello' }
  /** The service's socket is listening: only now does the loop say it serves. */
  | { type: 'listening'; port: number }
  | { type: 'swapped'; id: string }
  | { type: 'build-failed'; id: string; message: string };
