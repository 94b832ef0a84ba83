import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /v1/patients: stub added by `npm run generate`; replace it with the handler. */
export const listPatients: AppHandler<'listPatients'> = async () => notImplemented('listPatients');

/** POST /v1/patients: stub added by `npm run generate`; replace it with the handler. */
export const createPatient: AppHandler<'createPatient'> = async () =>
  notImplemented('createPatient');

/** POST /v1/patients/search: stub added by `npm run generate`; replace it with the handler. */
export const searchPatients: AppHandler<'searchPatients'> = async () =>
  notImplemented('searchPatients');

/** GET /v1/patients/{id}: stub added by `npm run generate`; replace it with the handler. */
export const retrievePatient: AppHandler<'retrievePatient'> = async () =>
  notImplemented('retrievePatient');

/** POST /v1/patients/{id}: stub added by `npm run generate`; replace it with the handler. */
export const updatePatient: AppHandler<'updatePatient'> = async () =>
  notImplemented('updatePatient');
