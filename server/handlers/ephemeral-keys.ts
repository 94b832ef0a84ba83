import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** POST /v1/ephemeral_keys: stub added by `npm run generate`; replace it with the handler. */
export const createEphemeralKey: AppHandler<'createEphemeralKey'> = async () =>
  notImplemented('createEphemeralKey');
