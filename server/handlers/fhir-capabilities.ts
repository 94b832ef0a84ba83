/**
 * FHIR R4 CapabilityStatement (`GET /fhir/R4/metadata`, docs/design.md#fhir-r4): public like
 * `/healthz`, made once from the route table.
 */
import { routes } from '../../generated/routes.js';
import { CURRENT_API_VERSION } from '../config.js';
import { type CapabilityStatement, capabilityStatement } from '../fhir/capability.js';
import type { AppHandler } from './types.js';

let statement: CapabilityStatement | undefined;

/** GET /fhir/R4/metadata */
export const readFhirCapabilities: AppHandler<'readFhirCapabilities'> = async () => {
  statement ??= capabilityStatement(routes, CURRENT_API_VERSION);
  return { status: 200, body: statement };
};
