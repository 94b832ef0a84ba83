import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /v1/appointments: stub added by `npm run generate`; replace it with the handler. */
export const listAppointments: AppHandler<'listAppointments'> = async () =>
  notImplemented('listAppointments');

/** POST /v1/appointments: stub added by `npm run generate`; replace it with the handler. */
export const createAppointment: AppHandler<'createAppointment'> = async () =>
  notImplemented('createAppointment');

/** GET /v1/appointments/{id}: stub added by `npm run generate`; replace it with the handler. */
export const retrieveAppointment: AppHandler<'retrieveAppointment'> = async () =>
  notImplemented('retrieveAppointment');

/** POST /v1/appointments/{id}: stub added by `npm run generate`; replace it with the handler. */
export const updateAppointment: AppHandler<'updateAppointment'> = async () =>
  notImplemented('updateAppointment');
