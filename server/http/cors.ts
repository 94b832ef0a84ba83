/**
 * CORS for the keys meant for browsers (docs/design.md#keys): publishable keys call `createToken`
 * and ephemeral keys act for one patient from a web page. Which operations a browser may call is
 * read from the route table (`keyKinds` containing `publishable` or `ephemeral`), never from a
 * list kept here.
 *
 * Preflights carry no `Authorization` header, so they cannot be checked against a key. They
 * are answered for any origin, but only for the paths and methods browser keys may call; the
 * key and its allowed origins are enforced on the actual request, before any handler runs.
 * That is sound because CORS protects the reader, not the server: a preflight only lets the
 * browser send a request the server then judges with the key in hand, and a refused origin
 * gets no `Access-Control-Allow-Origin`, so its page cannot read the answer. No cookies are
 * used (credentials are bearer keys the page holds), so `Allow-Credentials` is never sent.
 *
 * Allowed origins: a publishable key may list origins (`keys create --publishable --origin
 * https://clinic.example`); without a list it may be used from any origin. Ephemeral keys are
 * created by the API without a list and may be used from any origin: the secret is not
 * embedded in any page but handed by the integrator's server to one signed-in user for 15
 * minutes and one patient, and whoever holds it can call the API without a browser anyway, so
 * an origin list would add nothing. (A list stored on an ephemeral key is still honoured.)
 *
 * Secret and restricted keys are refused from browsers: any request with an `Origin` header
 * of another origin and such a key is `403 secret_key_required`, before a handler runs. That
 * refusal is readable by the page, so its developer learns why; no success response of a
 * server key ever is. The service's own pages (the docs explorer, same origin) are exempt: a
 * developer pastes a test key there on purpose, and no other site can send that `Origin`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyKind, RouteDefinition } from '../../contract/route-types.js';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from './auth.js';

const ALLOWED_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, PatientCare-Version, PatientCare-Actor';
const EXPOSED_HEADERS =
  'Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, PatientCare-Version, Deprecation, Sunset, Link';
const BROWSER_KINDS: ReadonlySet<KeyKind> = new Set(['publishable', 'ephemeral']);

/** Route config of the `OPTIONS` routes: the methods browsers may use at that path. */
interface PreflightConfig {
  corsMethods?: readonly string[];
}

/**
 * The origin of the page that made a cross-origin request, or undefined for requests from
 * servers and apps (no `Origin`) and from this service's own pages (the docs explorer, where
 * `Origin` is the API's own origin). `null` (sandboxed frames, `file:` pages) is a browser
 * origin like any other.
 */
function originOf(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === '') return undefined;
  return origin === `${request.protocol}://${request.host}` ? undefined : origin;
}

/** Whether a key kind is one browsers may hold. */
export function isBrowserKind(kind: KeyKind): boolean {
  return BROWSER_KINDS.has(kind);
}

/**
 * The methods browser keys may use per Fastify path, from the route table: every route whose
 * `keyKinds` include `publishable` or `ephemeral`.
 */
export function browserMethodsByUrl(
  routes: readonly RouteDefinition[],
): ReadonlyMap<string, readonly string[]> {
  const byUrl = new Map<string, string[]>();
  for (const route of routes) {
    if (!(route.keyKinds ?? []).some(isBrowserKind)) continue;
    const methods = byUrl.get(route.url) ?? [];
    if (!methods.includes(route.method)) methods.push(route.method);
    byUrl.set(route.url, methods);
  }
  return byUrl;
}

/**
 * Registers an `OPTIONS` route per path browser keys may call, so the router matches the
 * preflight's path (with its parameters) and `answerPreflight` knows the methods. An `OPTIONS`
 * that is not a preflight is authenticated like any request and then `route_missing`: the API
 * has no `OPTIONS` operations.
 */
export function registerPreflightRoutes(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
): void {
  for (const [url, methods] of browserMethodsByUrl(routes)) {
    const config: PreflightConfig = { corsMethods: methods };
    app.route({
      method: 'OPTIONS',
      url,
      config,
      handler: async () => {
        throw new ApiError('route_missing');
      },
    });
  }
}

/**
 * Answers a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`);
 * returns false for any other request. A preflight for a method browsers may not use at that
 * path (or a path they may not call at all) is `403 secret_key_required`, so the browser never
 * sends the request.
 */
export function answerPreflight(request: FastifyRequest, reply: FastifyReply): boolean {
  const origin = originOf(request);
  const requested = request.headers['access-control-request-method'];
  if (request.method !== 'OPTIONS' || origin === undefined || typeof requested !== 'string') {
    return false;
  }
  const methods = (request.routeOptions.config as PreflightConfig | undefined)?.corsMethods;
  if (methods === undefined || !methods.includes(requested)) {
    throw new ApiError('secret_key_required', {
      message:
        'This operation cannot be called from a browser: only the operations of publishable and ephemeral keys can. Call it from your server with a secret or restricted key.',
    });
  }
  reply
    .code(204)
    .header('Access-Control-Allow-Origin', origin)
    .header('Access-Control-Allow-Methods', methods.join(', '))
    .header('Access-Control-Allow-Headers', ALLOWED_HEADERS)
    .header('Access-Control-Max-Age', '600')
    .header('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  return true;
}

/**
 * Refuses a request from a browser (it has an `Origin` header) made with a secret or
 * restricted key, and one made with a browser key from an origin the key does not list.
 * Requests without `Origin` come from servers and apps and pass.
 */
export function checkOrigin(request: FastifyRequest, key: AuthenticatedKey): void {
  const origin = originOf(request);
  if (origin === undefined) return;
  if (!isBrowserKind(key.kind)) {
    throw new ApiError('secret_key_required', {
      message:
        'Secret and restricted API keys must not be used from a browser, where anyone who loads the page can read them. Keep this key on your server; in the browser use a publishable key (for intake tokens) or an ephemeral key (for one patient).',
    });
  }
  if (!originAllowed(key, origin)) {
    throw new ApiError('insufficient_scope', {
      message: 'This API key may not be used from this browser origin.',
    });
  }
}

function originAllowed(key: AuthenticatedKey, origin: string): boolean {
  return key.allowedOrigins.length === 0 || key.allowedOrigins.includes(origin);
}

/** Adds the CORS response headers a browser needs to read this response, when it may. */
export function addCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const origin = originOf(request);
  // Preflights have their own headers (`answerPreflight`).
  if (origin === undefined || reply.hasHeader('Access-Control-Allow-Methods')) return;
  reply.header('Vary', 'Origin');
  const key = request.apiKey;
  if (key !== null) {
    // A server key's only readable answers are errors (its refusal, above all); a browser
    // key's are those from an origin it allows.
    if (!isBrowserKind(key.kind) && reply.statusCode < 400) return;
    if (isBrowserKind(key.kind) && !originAllowed(key, origin)) return;
  }
  // No key yet (401, 429 by address): the page may read why.
  reply.header('Access-Control-Allow-Origin', origin);
  reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
}
