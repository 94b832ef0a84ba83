/**
 * Refusals made before routing (server/http/client-errors.ts: malformed framing, oversized
 * headers, timeouts) for requests under `/fhir/R4`: an OperationOutcome, as every other FHIR
 * error, instead of the `/v1` envelope. Which face a request is for is read from its target,
 * when the parser got that far.
 */
import { ApiError, type ErrorCode } from '../errors.js';
import { fhirErrorReply } from './errors.js';
import { FHIR_BASE, FHIR_JSON } from './paths.js';

/** Whether a request target (`/fhir/R4/Patient?…`) is on the FHIR face. */
export function isFhirTarget(target: string | undefined): boolean {
  if (target === undefined) return false;
  return target === FHIR_BASE || /^\/fhir\/R4[/?]/.test(target);
}

/** The body and content type of a pre-routing refusal on the FHIR face. */
export function fhirRefusal(code: ErrorCode): { contentType: string; body: string } {
  const reply = fhirErrorReply(new ApiError(code));
  return { contentType: FHIR_JSON, body: JSON.stringify(reply.body) };
}
