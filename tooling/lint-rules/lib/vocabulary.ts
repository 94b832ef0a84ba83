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

/**
 * The FHIR R4 face of the service (docs/design.md#fhir-r4). Its operations answer errors as
 * FHIR `OperationOutcome` in `application/fhir+json`, never the `/v1` envelope.
 */
export const FHIR_BASE_PATH = '/fhir/R4';

/** The schema every FHIR error response uses instead of `Error`. */
export const FHIR_ERROR_SCHEMA_REF = '#/components/schemas/OperationOutcome';

/** FHIR error responses by status, as named in components/responses. */
export const FHIR_ERROR_RESPONSE_COMPONENTS: Readonly<Record<string, string>> = {
  400: 'FhirBadRequest',
  401: 'FhirUnauthorized',
  403: 'FhirForbidden',
  404: 'FhirNotFound',
  409: 'FhirConflict',
  413: 'FhirPayloadTooLarge',
  415: 'FhirUnsupportedMediaType',
  422: 'FhirUnprocessable',
  429: 'FhirTooManyRequests',
  500: 'FhirInternalError',
};

/**
 * Marks a query parameter of a FHIR search that carries PHI because FHIR defines it as a
 * query parameter (`family`, `birthdate`, …): the one exception to `no-phi-in-url`, valid only
 * on `FHIR_BASE_PATH` paths. Such values are never logged nor audited by value.
 */
export const FHIR_SEARCH_PHI_EXTENSION = 'x-fhir-search-phi';

/** Whether an OpenAPI path is part of the FHIR face. */
export function isFhirPath(path: string): boolean {
  return path === FHIR_BASE_PATH || path.startsWith(`${FHIR_BASE_PATH}/`);
}
