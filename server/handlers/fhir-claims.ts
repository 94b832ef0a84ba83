import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /fhir/R4/Claim: stub added by `npm run generate`; replace it with the handler. */
export const searchFhirClaims: AppHandler<'searchFhirClaims'> = async () =>
  notImplemented('searchFhirClaims');

/** GET /fhir/R4/Claim/{id}: stub added by `npm run generate`; replace it with the handler. */
export const readFhirClaim: AppHandler<'readFhirClaim'> = async () =>
  notImplemented('readFhirClaim');
