import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /v1/events: stub added by `npm run generate`; replace it with the handler. */
export const listEvents: AppHandler<'listEvents'> = async () => notImplemented('listEvents');

/** GET /v1/events/{id}: stub added by `npm run generate`; replace it with the handler. */
export const retrieveEvent: AppHandler<'retrieveEvent'> = async () =>
  notImplemented('retrieveEvent');
