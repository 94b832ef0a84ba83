/**
 * The production storage functions, gathered into the `HttpStore` shape `buildApp` takes.
 */
import { recordAudit } from '../audit/index.js';
import { findKeyBySecret } from '../keys/index.js';
import { abandonIdempotent, beginIdempotent, completeIdempotent } from '../repos/idempotency.js';
import { takeToken } from '../repos/rate-limits.js';
import type { HttpStore } from './store.js';

export const defaultStore: HttpStore = {
  findKeyBySecret,
  takeToken,
  beginIdempotent,
  completeIdempotent,
  abandonIdempotent,
  recordAudit,
};
