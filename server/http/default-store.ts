/**
 * The production storage functions, gathered into the `HttpStore` shape `buildApp` takes.
 */
import { abandonIdempotent, beginIdempotent, completeIdempotent } from '../repos/idempotency.js';
import type { HttpStore } from './store.js';

export const defaultStore: HttpStore = {
  findKeyBySecret: async () => undefined,
  takeToken: async () => ({ allowed: true, limit: 0, remaining: 0, resetSeconds: 0 }),
  beginIdempotent,
  completeIdempotent,
  abandonIdempotent,
  recordAudit: async () => undefined,
};
