import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /fhir/R4/Patient: stub added by `npm run generate`; replace it with the handler. */
export const searchFhirPatients: AppHandler<'searchFhirPatients'> = async () =>
  notImplemented('searchFhirPatients');

/** POST /fhir/R4/Patient: stub added by `npm run generate`; replace it with the handler. */
export const createFhirPatient: AppHandler<'createFhirPatient'> = async () =>
  notImplemented('createFhirPatient');

/** GET /fhir/R4/Patient/{id}: stub added by `npm run generate`; replace it with the handler. */
export const readFhirPatient: AppHandler<'readFhirPatient'> = async () =>
  notImplemented('readFhirPatient');
