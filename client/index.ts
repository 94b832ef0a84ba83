/**
 * The client runtime that `generated/client.ts` builds on. Browser-safe: no Node-only imports.
 * Webhook verification needs `node:crypto` and lives in `./webhook.js`.
 */
export {
  type ClientOptions,
  createOperationClient,
  type DocumentDefaults,
  VERSION_HEADER,
} from './create-client.js';
export { ApiError, ConnectionError } from './errors.js';
export { ensureIdempotencyKey, IDEMPOTENCY_HEADER, randomIdempotencyKey } from './idempotency.js';
export { paginate } from './paginate.js';
export {
  backoffDelay,
  createRetryingFetch,
  parseRetryAfter,
  type RetryEvent,
  type RetryOptions,
  type RetryReason,
} from './retry.js';
export type {
  CursorSpec,
  ListItemOf,
  OperationClient,
  OperationInit,
  OperationMethod,
  OperationObjectOf,
  OperationResult,
  OperationSpec,
  OperationTable,
  Paginated,
} from './types.js';
