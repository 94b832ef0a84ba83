/**
 * CORS for the keys meant for browsers (api.md §8): publishable keys call `createToken` and
 * ephemeral keys act for one patient from a web page. Their responses carry
 * `Access-Control-Allow-Origin` (when the key allows the page's origin); secret and restricted
 * keys never get it, so a browser page cannot read what a server key returns. Preflights are
 * answered before authentication, since browsers send them without the `Authorization` header.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from './auth.js';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, PatientCare-Version';
const EXPOSED_HEADERS =
  'Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, PatientCare-Version';
const BROWSER_KINDS = new Set(['publishable', 'ephemeral']);

function originOf(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  return typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}

/** Answers a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`); true if it did. */
export function answerPreflight(request: FastifyRequest, reply: FastifyReply): boolean {
  const origin = originOf(request);
  if (request.method !== 'OPTIONS' || origin === undefined) return false;
  if (request.headers['access-control-request-method'] === undefined) return false;
  reply
    .code(204)
    .header('Access-Control-Allow-Origin', origin)
    .header('Access-Control-Allow-Methods', 'GET, POST, DELETE')
    .header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
    .header('Access-Control-Max-Age', '600')
    .header('Vary', 'Origin');
  return true;
}

/**
 * Refuses a browser key used from an origin it does not list (a key without a list may be
 * used from any origin). Requests without `Origin` come from servers and pass.
 */
export function checkOrigin(request: FastifyRequest, key: AuthenticatedKey): void {
  const origin = originOf(request);
  if (origin === undefined || !BROWSER_KINDS.has(key.kind)) return;
  if (key.allowedOrigins.length > 0 && !key.allowedOrigins.includes(origin)) {
    throw new ApiError('insufficient_scope', {
      message: 'This API key may not be used from this browser origin.',
    });
  }
}

/** Adds the CORS response headers a browser needs to read this response, when it may. */
export function addCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const origin = originOf(request);
  if (origin === undefined) return;
  reply.header('Vary', 'Origin');
  const key = request.apiKey;
  // No key yet (401, 429 by address): let the page read why. A server key: never.
  if (key !== null && !BROWSER_KINDS.has(key.kind)) return;
  if (key !== null && key.allowedOrigins.length > 0 && !key.allowedOrigins.includes(origin)) {
    return;
  }
  reply.header('Access-Control-Allow-Origin', origin);
  reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}
