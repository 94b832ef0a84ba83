/**
 * The one error registry (docs/design.md#errors): every error code the service can answer with, its
 * HTTP status, its type and a default message. `errorEnvelope` is the only place the spec's
 * `{"error": {...}}` body is built, so every non-2xx response has the same shape.
 */

/** The `type` field of the error envelope. */
export type ErrorType =
  | 'invalid_request_error'
  | 'idempotency_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'api_error';

interface ErrorSpec {
  readonly status: number;
  readonly type: ErrorType;
  readonly message: string;
}

/**
 * Base of every `doc_url` (the code is appended as a fragment): the Errors section of the docs
 * this server serves (`/docs/errors`, server/docs/plugin.ts), at the address clients reach it
 * by. `main` sets it once listening, from PUBLIC_URL or the listening address; until then (and
 * in tests that build an app without `main`) it names the default address. Absolute because
 * the spec declares `doc_url` a URI.
 */
let errorDocBase = 'http://127.0.0.1:4010/docs/errors';

/** Points `doc_url` at `<baseUrl>/docs/errors` (`baseUrl` without a trailing slash). */
export function setErrorDocBase(baseUrl: string): void {
  errorDocBase = `${baseUrl.replace(/\/+$/, '')}/docs/errors`;
}

const REGISTRY = {
  parameter_missing: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A required parameter is missing.',
  },
  parameter_unknown: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request contains a parameter this operation does not accept.',
  },
  parameter_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A parameter has an invalid value.',
  },
  parameters_exclusive: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Two parameters that cannot be used together were both given.',
  },
  status_transition_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The object cannot move to the requested status from its current status.',
  },
  body_invalid_json: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The request body is not valid JSON.',
  },
  token_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The token is invalid, expired or already used.',
  },
  request_malformed: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'The request is not well-formed HTTP/1.1 (for example both Content-Length and Transfer-Encoding, a repeated Content-Length, a folded header or a line not ended by CRLF).',
  },
  idempotency_key_reused: {
    status: 400,
    type: 'idempotency_error',
    message:
      'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
  },
  api_key_missing: {
    status: 401,
    type: 'authentication_error',
    message: 'No API key was provided. Send it as `Authorization: Bearer <key>`.',
  },
  api_key_invalid: {
    status: 401,
    type: 'authentication_error',
    message: 'The API key provided is invalid or has been revoked.',
  },
  api_key_expired: {
    status: 401,
    type: 'authentication_error',
    message: 'The API key provided has expired.',
  },
  insufficient_scope: {
    status: 403,
    type: 'permission_error',
    message: 'The API key does not have the scope this operation requires.',
  },
  secret_key_required: {
    status: 403,
    type: 'permission_error',
    message: 'This operation requires a secret or restricted API key.',
  },
  ip_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: 'Requests with this API key are not allowed from this IP address.',
  },
  livemode_mismatch: {
    status: 403,
    type: 'permission_error',
    message: 'The object belongs to the other mode (test or live) than the API key.',
  },
  resource_missing: {
    status: 404,
    type: 'invalid_request_error',
    message: 'No such object.',
  },
  route_missing: {
    status: 404,
    type: 'invalid_request_error',
    message: 'Unrecognized request URL or method.',
  },
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The request was not received completely in time. Send it again at once.',
  },
  idempotency_key_in_use: {
    status: 409,
    type: 'invalid_request_error',
    message:
      'A request with this Idempotency-Key is still being processed. Retry after it completes.',
  },
  resource_already_exists: {
    status: 409,
    type: 'invalid_request_error',
    message: 'An object with the same unique identifier already exists.',
  },
  body_too_large: {
    status: 413,
    type: 'invalid_request_error',
    message: 'The request body exceeds the 1 MiB limit.',
  },
  content_type_unsupported: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Request bodies must be sent as `Content-Type: application/json`.',
  },
  rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many requests with this API key. Retry after the time in `Retry-After`.',
  },
  headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    message: 'The request headers exceed the 16 KiB limit.',
  },
  internal: {
    status: 500,
    type: 'api_error',
    message: 'An internal error occurred. Quote the request id when contacting support.',
  },
  service_unavailable: {
    status: 503,
    type: 'api_error',
    message:
      'The service cannot reach its database right now. Retry after the time in `Retry-After`.',
  },
} as const satisfies Record<string, ErrorSpec>;

/** Every error code the service answers with. */
export type ErrorCode = keyof typeof REGISTRY;

/** The registry entry for a code. */
export function errorSpec(code: ErrorCode): ErrorSpec {
  return REGISTRY[code];
}

/** Every registered code, for tests and documentation. */
export const ERROR_CODES = Object.keys(REGISTRY) as ErrorCode[];

/**
 * The body of every non-2xx response (schema `Error`). A type, not an interface, so it is a
 * `Json` value as it stands (the version renderer takes one) with no cast.
 */
export type ErrorEnvelope = {
  error: {
    type: ErrorType;
    code: ErrorCode;
    message: string;
    param: string | null;
    doc_url: string;
    request_id: string;
  };
};

/** Optional details of an error: never PHI — parameter names and ids only. */
export interface ApiErrorOptions {
  /** The request parameter at fault, as the client wrote it (`name.family`, `created[gt]`). */
  param?: string | null;
  /** Replaces the registry's default message. Must not contain PHI. */
  message?: string;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Readonly<Record<string, string>>;
  /** The original error, for the log only; never sent. */
  cause?: unknown;
}

/**
 * An error a client is meant to see. Throw it from hooks or handlers; the error handler turns it
 * into the envelope.
 *
 * @example throw new ApiError('resource_missing', { param: 'id' });
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const spec = REGISTRY[code];
    super(options.message ?? spec.message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = spec.status;
    this.type = spec.type;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }
}

/** Whether `value` is an `ApiError` (also across module copies, by shape). */
export function isApiError(value: unknown): value is ApiError {
  return (
    value instanceof ApiError ||
    (value instanceof Error &&
      value.name === 'ApiError' &&
      Object.hasOwn(REGISTRY, String(Reflect.get(value, 'code'))))
  );
}

/** Seconds a client is asked to wait when the database is unreachable. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * `503 service_unavailable` (with `Retry-After`) for an error that says the database could not
 * be reached — refused, dropped or timed-out connections (docs/design.md#rate-limits) — and
 * undefined for anything else. Retrying is then safe and useful, which a 500 does not say.
 */
export function outageError(error: unknown): ApiError | undefined {
  // By shape, like `isApiError`: `DbError` (server/db/errors.ts) uses parameter properties,
  // which the strip-only TypeScript of the scripts that load this registry cannot run.
  const db = error as { name?: unknown; code?: unknown } | null;
  if (!(error instanceof Error) || db?.name !== 'DbError' || db.code !== 'connection') {
    return undefined;
  }
  return new ApiError('service_unavailable', {
    cause: error,
    headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
  });
}

/** The documentation link for a code. */
export function docUrl(code: ErrorCode | 'not_implemented'): string {
  return `${errorDocBase}#${code}`;
}

/**
 * Builds the envelope for an error. Unexpected errors (anything not an `ApiError`) become
 * `internal` with only the request id: their message could hold SQL, a stack or PHI.
 */
export function errorEnvelope(error: unknown, requestId: string): ErrorEnvelope {
  const api = isApiError(error) ? error : new ApiError('internal');
  return {
    error: {
      type: api.type,
      code: api.code,
      // The spec caps `message` at 1000 characters (a long enum list could pass it).
      message: (api.code === 'internal' ? REGISTRY.internal.message : api.message).slice(0, 1000),
      param: api.param,
      doc_url: docUrl(api.code),
      request_id: requestId,
    },
  };
}
