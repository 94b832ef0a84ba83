import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /v1/webhooks: stub added by `npm run generate`; replace it with the handler. */
export const listWebhooks: AppHandler<'listWebhooks'> = async () => notImplemented('listWebhooks');

/** POST /v1/webhooks: stub added by `npm run generate`; replace it with the handler. */
export const createWebhook: AppHandler<'createWebhook'> = async () =>
  notImplemented('createWebhook');

/** GET /v1/webhooks/{id}: stub added by `npm run generate`; replace it with the handler. */
export const retrieveWebhook: AppHandler<'retrieveWebhook'> = async () =>
  notImplemented('retrieveWebhook');

/** POST /v1/webhooks/{id}: stub added by `npm run generate`; replace it with the handler. */
export const updateWebhook: AppHandler<'updateWebhook'> = async () =>
  notImplemented('updateWebhook');

/** DELETE /v1/webhooks/{id}: stub added by `npm run generate`; replace it with the handler. */
export const deleteWebhook: AppHandler<'deleteWebhook'> = async () =>
  notImplemented('deleteWebhook');
