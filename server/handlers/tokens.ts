import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** POST /v1/tokens: stub added by `npm run generate`; replace it with the handler. */
export const createToken: AppHandler<'createToken'> = async () => notImplemented('createToken');
