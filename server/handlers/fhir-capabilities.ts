/**
 * FHIR R4 CapabilityStatement (`GET /fhir/R4/metadata`, docs/design.md#fhir-r4): public like
 * `/healthz`, made from the route table once per FHIR base.
 */
import { routes } from '../../generated/routes.js';
import { CURRENT_API_VERSION } from '../config.js';
import { type CapabilityStatement, capabilityStatement } from '../fhir/capability.js';
import { requestInfo } from '../fhir/request-info.js';
import type { AppHandler } from './types.js';

/** Statements by FHIR base: one with `PUBLIC_URL`, one per listening address without. */
const statements = new Map<string, CapabilityStatement>();

/** GET /fhir/R4/metadata */
export const readFhirCapabilities: AppHandler<'readFhirCapabilities'> = async (request) => {
  const { base } = requestInfo(request.query);
  let statement = statements.get(base);
  if (statement === undefined) {
    statement = capabilityStatement(routes, CURRENT_API_VERSION, base);
    statements.set(base, statement);
  }
  return { status: 200, body: statement };
};
