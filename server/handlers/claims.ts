import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /v1/claims: stub added by `npm run generate`; replace it with the handler. */
export const listClaims: AppHandler<'listClaims'> = async () => notImplemented('listClaims');

/** POST /v1/claims: stub added by `npm run generate`; replace it with the handler. */
export const submitClaim: AppHandler<'submitClaim'> = async () => notImplemented('submitClaim');

/** GET /v1/claims/{id}: stub added by `npm run generate`; replace it with the handler. */
export const retrieveClaim: AppHandler<'retrieveClaim'> = async () =>
  notImplemented('retrieveClaim');
