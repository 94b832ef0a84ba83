/**
 * FHIR errors: what a FHIR handler throws and what every error on `/fhir/R4` becomes, an
 * `OperationOutcome` with the HTTP status (docs/design.md#fhir-r4). `/v1` errors (`ApiError`,
 * from the shared hooks and validation) are translated here, in one table, so the FHIR face
 * never shows the `/v1` envelope and the two registries cannot disagree on a status.
 */
import type { components } from '../../generated/types.js';
import { type ErrorCode, errorSpec, isApiError, outageError } from '../errors.js';

/**
 * The code system of the `/v1` error codes carried in `issue.details`: an identifier, not a
 * link (each server documents the codes at its own `/docs/errors`).
 */
export const ERROR_CODE_SYSTEM = 'https://patientcare.example/fhir/CodeSystem/error-code';

export type OperationOutcome = components['schemas']['OperationOutcome'];
/** FHIR's issue types (value set `issue-type`) that we answer with. */
export type IssueType = OperationOutcome['issue'][number]['code'];

/** Options of a `FhirError`: never PHI in `diagnostics`. */
export interface FhirErrorOptions {
  /** The FHIRPath of the element or the search parameter at fault (`Patient.name`, `family`). */
  expression?: string;
  /** The `/v1` error code this is, when there is one (`resource_missing`). */
  code?: ErrorCode;
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
}

/**
 * An error a FHIR client is meant to see.
 *
 * @example throw new FhirError(422, 'business-rule', 'birthDate cannot be in the future.', { expression: 'Patient.birthDate' });
 */
export class FhirError extends Error {
  readonly statusCode: number;
  readonly issueType: IssueType;
  readonly expression: string | undefined;
  readonly code: ErrorCode | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    issueType: IssueType,
    diagnostics: string,
    options: FhirErrorOptions = {},
  ) {
    super(diagnostics, { cause: options.cause });
    this.name = 'FhirError';
    this.statusCode = status;
    this.issueType = issueType;
    this.expression = options.expression;
    this.code = options.code;
    this.headers = options.headers ?? {};
  }
}

/** `404 not-found` for a resource that is not there (or belongs to the other mode). */
export function resourceNotFound(type: string): FhirError {
  return new FhirError(404, 'not-found', `No such ${type}.`, { code: 'resource_missing' });
}

/** The issue type of each `/v1` error code; the status is the registry's. */
const ISSUE_TYPES: Readonly<Record<ErrorCode, IssueType>> = {
  parameter_missing: 'required',
  parameter_unknown: 'not-supported',
  parameter_invalid: 'value',
  parameters_exclusive: 'invalid',
  status_transition_invalid: 'business-rule',
  body_invalid_json: 'invalid',
  token_invalid: 'invalid',
  idempotency_key_reused: 'conflict',
  api_key_missing: 'login',
  api_key_invalid: 'login',
  api_key_expired: 'login',
  insufficient_scope: 'forbidden',
  secret_key_required: 'forbidden',
  ip_not_allowed: 'forbidden',
  livemode_mismatch: 'forbidden',
  resource_missing: 'not-found',
  route_missing: 'not-found',
  idempotency_key_in_use: 'conflict',
  resource_already_exists: 'duplicate',
  body_too_large: 'too-costly',
  content_type_unsupported: 'not-supported',
  rate_limited: 'throttled',
  // Refused before routing; under /fhir/R4 answered by server/fhir/refusal.ts.
  request_malformed: 'invalid',
  headers_too_large: 'too-costly',
  request_timeout: 'exception',
  internal: 'exception',
  service_unavailable: 'transient',
};

/** What an error on the FHIR face answers: status, body and extra headers. */
export interface FhirErrorReply {
  status: number;
  body: OperationOutcome;
  headers: Readonly<Record<string, string>>;
}

/**
 * One error issue. `details` carries the `/v1` error code (system: the errors' docs), so an
 * integrator can branch on the same codes in both faces.
 */
function outcome(
  issueType: IssueType,
  diagnostics: string,
  expression: string | undefined,
  code: ErrorCode | undefined,
): OperationOutcome {
  const issue: OperationOutcome['issue'][number] = {
    severity: 'error',
    code: issueType,
    diagnostics: diagnostics.slice(0, 1000),
  };
  if (code !== undefined) issue.details = { coding: [{ system: ERROR_CODE_SYSTEM, code }] };
  if (expression !== undefined) issue.expression = [expression];
  return { resourceType: 'OperationOutcome', issue: [issue] };
}

/**
 * The reply for anything thrown on the FHIR face. Unexpected errors become `500 exception`
 * with the registry's message only: their text could hold SQL, a stack or PHI.
 */
export function fhirErrorReply(error: unknown): FhirErrorReply {
  if (error instanceof FhirError) {
    return {
      status: error.statusCode,
      body: outcome(error.issueType, error.message, error.expression, error.code),
      headers: error.headers,
    };
  }
  if (isApiError(error)) {
    const message =
      error.code === 'content_type_unsupported'
        ? 'Request bodies must be sent as application/fhir+json (or application/json).'
        : error.code === 'internal'
          ? errorSpec('internal').message
          : error.message;
    return {
      status: error.statusCode,
      body: outcome(ISSUE_TYPES[error.code], message, error.param ?? undefined, error.code),
      headers: error.headers,
    };
  }
  const outage = outageError(error);
  if (outage !== undefined) return fhirErrorReply(outage);
  return {
    status: 500,
    body: outcome('exception', errorSpec('internal').message, undefined, 'internal'),
    headers: {},
  };
}
