/**
 * Every error, from a hook, a handler or Fastify itself, leaves through `sendError`, which maps
 * it to the registry and writes the spec's envelope with the headers every response carries.
 * Bad input never becomes a 500; unexpected errors become `internal` with only the request id.
 */

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { ApiError, errorEnvelope, isApiError, outageError } from '../errors.js';
import { renderIn } from '../versioning/index.js';
import { anonymousBucket, hasRateLimitHeaders, takeRequestToken } from './rate-limit.js';
import type { HttpStore } from './store.js';
import { earlyAnswerVersion } from './version.js';

/** Fastify's own error codes mapped to ours; each is the client's fault, never a 500. */
const FASTIFY_CODES: Readonly<Record<string, ConstructorParameters<typeof ApiError>[0]>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'content_type_unsupported',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'body_invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'body_invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'body_invalid_json',
  FST_ERR_NOT_FOUND: 'route_missing',
  FST_ERR_BAD_URL: 'route_missing',
  FST_ERR_MAX_PARAM_LENGTH: 'parameter_invalid',
};

/** Maps anything thrown to an `ApiError`. */
export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  const outage = outageError(error);
  if (outage !== undefined) return outage;
  const e = error as { code?: unknown; statusCode?: unknown } | null;
  const code = typeof e?.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (code !== undefined) return new ApiError(code, { cause: error });
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 404) return new ApiError('route_missing', { cause: error });
  if (status === 413) return new ApiError('body_too_large', { cause: error });
  if (status === 415) return new ApiError('content_type_unsupported', { cause: error });
  if (status >= 400 && status < 500) {
    // Body parser failures (JSON syntax, prototype poisoning) are SyntaxErrors with a 4xx.
    return new ApiError(error instanceof SyntaxError ? 'body_invalid_json' : 'parameter_invalid', {
      cause: error,
    });
  }
  return new ApiError('internal', { cause: error });
}

/** What error replies need from the app. */
export interface ErrorDeps {
  db: Db;
  store: Pick<HttpStore, 'takeToken'>;
  clock: () => number;
  rateLimits: RateLimitConfig;
  apiVersions: readonly string[];
}

/**
 * What every error reply does whatever its body (the `/v1` envelope here, FHIR's
 * OperationOutcome under `/fhir/R4`): a request that never reached its key's bucket (no key,
 * bad key, unknown route) is counted against its client address, so the `RateLimit-*` headers
 * are on every response and guessing keys is rate limited too; and the headers every response
 * carries; a 5xx is logged with what was thrown (`cause`). Returns the error to answer:
 * `error`, or the rate limit's when that bucket is empty.
 */
export async function prepareErrorReply(
  deps: ErrorDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  error: { readonly statusCode: number },
  cause: unknown = error,
): Promise<unknown> {
  if (error.statusCode >= 500) {
    request.log.error({ err: cause }, 'request failed with an unexpected error');
  }
  let answer: unknown = error;
  if (!hasRateLimitHeaders(reply)) {
    try {
      await takeRequestToken(
        deps.db,
        deps.store,
        reply,
        anonymousBucket(request.ip),
        deps.rateLimits.anonymousRps,
        deps.clock(),
      );
    } catch (limitError) {
      // Unchecked against its limit, the request is not answered as if it had been: an
      // unreachable database makes it a 503 (docs/design.md#rate-limits).
      const outage = outageError(limitError);
      if (isApiError(limitError)) answer = limitError;
      else if (outage !== undefined) answer = outage;
      else request.log.error({ err: limitError }, 'rate-limit bucket unavailable');
    }
  }
  reply.header('Request-Id', request.id);
  reply.header('Cache-Control', 'no-store');
  reply.header('X-Content-Type-Options', 'nosniff');
  if (!reply.hasHeader('patientcare-version')) {
    // Router errors arrive before any hook set it (see `earlyAnswerVersion`).
    const version =
      request.apiVersion ??
      earlyAnswerVersion(deps.db, request.headers['patientcare-version'], deps.apiVersions);
    reply.header('PatientCare-Version', typeof version === 'string' ? version : await version);
  }
  return answer;
}

/** Sends the envelope for `error` (see `prepareErrorReply` for what every error reply does). */
export async function sendError(
  deps: ErrorDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): Promise<FastifyReply> {
  const api = toApiError(await prepareErrorReply(deps, request, reply, toApiError(error), error));
  for (const [name, value] of Object.entries(api.headers)) reply.header(name, value);
  return reply
    .code(api.statusCode)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(renderIn(answeredIn(reply), errorEnvelope(api, request.id))));
}

/**
 * The version an error's body is rendered in: the one its `PatientCare-Version` header says
 * (`prepareErrorReply` sets it when no hook did), so the body and the header never disagree.
 */
function answeredIn(reply: FastifyReply): string | null {
  const version = reply.getHeader('patientcare-version');
  return typeof version === 'string' ? version : null;
}

/** A URL prefix whose errors are answered in another form (the FHIR face's OperationOutcome). */
export interface ErrorFace {
  prefix: string;
  send(
    deps: ErrorDeps,
    request: FastifyRequest,
    reply: FastifyReply,
    error: unknown,
  ): Promise<FastifyReply>;
}

/**
 * The error sender for the whole app: `sendError`, or a face's own form when the URL is under
 * its prefix. Router errors (a path parameter over the router's length limit, bad
 * percent-encoding) arrive here via `frameworkErrors` before any route scope is entered, so
 * the face is chosen by the URL.
 */
export function errorSender(
  deps: ErrorDeps,
  faces: readonly ErrorFace[] = [],
): (error: unknown, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return (error, request, reply) => {
    const url = request.url;
    const face = faces.find(
      (f) => url === f.prefix || url.startsWith(`${f.prefix}/`) || url.startsWith(`${f.prefix}?`),
    );
    return face === undefined
      ? sendError(deps, request, reply, error)
      : face.send(deps, request, reply, error);
  };
}

/** Installs the error handler and the unknown-route handler. */
export function installErrorHandling(
  app: FastifyInstance,
  deps: ErrorDeps,
  faces: readonly ErrorFace[] = [],
): void {
  const send = errorSender(deps, faces);
  app.setErrorHandler((error, request, reply) => send(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendError(deps, request, reply, new ApiError('route_missing')),
  );
}
