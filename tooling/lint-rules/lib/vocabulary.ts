/**
 * The API's access vocabulary (docs/design.md#keys), in one place so every rule and message
 * uses the same words. Key kinds are contract/key-kinds.ts, scopes contract/scopes.ts.
 */
import { ALL_SCOPES, EPHEMERAL_SCOPES as EPHEMERAL_KEY_SCOPES } from '../../../contract/scopes.js';

/** Scopes an API key may carry (contract/scopes.ts). "Write implies read" is the server's rule. */
export const KNOWN_SCOPES: readonly string[] = ALL_SCOPES;

/** Scopes an ephemeral key can be created with; other scopes can never reach it. */
export const EPHEMERAL_SCOPES: readonly string[] = EPHEMERAL_KEY_SCOPES;

/**
 * Key kinds that may call a scope-less operation: such an operation is gated by key kind alone
 * (createToken: publishable; createEphemeralKey: secret), never by a restricted key's scopes.
 */
export const SCOPELESS_KEY_KINDS = ['publishable', 'secret'];

/** Shared error responses, by status, as named in components/responses. */
export const ERROR_RESPONSE_COMPONENTS: Readonly<Record<string, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalError',
};
