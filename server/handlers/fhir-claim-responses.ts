import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /fhir/R4/ClaimResponse: stub added by `npm run generate`; replace it with the handler. */
export const searchFhirClaimResponses: AppHandler<'searchFhirClaimResponses'> = async () =>
  notImplemented('searchFhirClaimResponses');

/** GET /fhir/R4/ClaimResponse/{id}: stub added by `npm run generate`; replace it with the handler. */
export const readFhirClaimResponse: AppHandler<'readFhirClaimResponse'> = async () =>
  notImplemented('readFhirClaimResponse');
