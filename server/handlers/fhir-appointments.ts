import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /fhir/R4/Appointment: stub added by `npm run generate`; replace it with the handler. */
export const searchFhirAppointments: AppHandler<'searchFhirAppointments'> = async () =>
  notImplemented('searchFhirAppointments');

/** GET /fhir/R4/Appointment/{id}: stub added by `npm run generate`; replace it with the handler. */
export const readFhirAppointment: AppHandler<'readFhirAppointment'> = async () =>
  notImplemented('readFhirAppointment');
