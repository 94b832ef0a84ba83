/**
 * The FHIR R4 face as a Fastify plugin scope (docs/design.md#fhir-r4): the `/fhir/R4`
 * operations of the route table, registered by the same `registerRoutes` as `/v1` (keys,
 * scopes, validation, idempotency, audit, rate limits are the same code), inside a scope of
 * their own that answers the FHIR way: bodies read as `application/fhir+json` (and
 * `application/json`), replies sent as `application/fhir+json`, every error (hooks,
 * validation, handlers, unknown `/fhir/R4` URLs) an `OperationOutcome`, never the `/v1`
 * envelope. Before each handler the scope refuses formats other than JSON (`negotiation.ts`),
 * reads a form-encoded `POST [type]/_search` body into the query (its `_format` judged like
 * the URL's), sets aside the search parameters lenient handling ignores (`lenient-search.ts`)
 * and works out the absolute base the reply's links are built on (`base-url.ts`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDefinition } from '../../contract/route-types.js';
import { ApiError } from '../errors.js';
import { type ErrorDeps, prepareErrorReply, toApiError } from '../http/error-handler.js';
import { parseJsonBody } from '../http/json-body.js';
import { parseQueryString } from '../http/querystring.js';
import { type HandlerTable, type RegisterDeps, registerRoutes } from '../http/register-routes.js';
import { fhirBaseUrl } from './base-url.js';
import { FhirError, fhirErrorReply } from './errors.js';
import { isTypeSearch, lenientQuery, prefersStrict } from './lenient-search.js';
import { checkAcceptable } from './negotiation.js';
import { FHIR_BASE, FHIR_JSON } from './paths.js';
import { attachRequestInfo } from './request-info.js';

export { FHIR_BASE, FHIR_JSON } from './paths.js';

/** Whether a route belongs to the FHIR face. */
export function isFhirRoute(route: RouteDefinition): boolean {
  return route.url.startsWith(`${FHIR_BASE}/`);
}

/** Sends an OperationOutcome for anything thrown on the FHIR face (router errors too). */
export async function sendOutcome(
  deps: ErrorDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
): Promise<FastifyReply> {
  const first = error instanceof FhirError ? error : toApiError(error);
  const answer = fhirErrorReply(await prepareErrorReply(deps, request, reply, first, error));
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  return reply
    .code(answer.status)
    .header('content-type', FHIR_JSON)
    .send(JSON.stringify(answer.body));
}

/** What the plugin registers: the FHIR routes and the app's handlers and dependencies. */
export interface FhirPluginOptions {
  routes: readonly RouteDefinition[];
  handlers: HandlerTable;
  deps: RegisterDeps;
  /** `PUBLIC_URL`, the base of every link the face writes; unset: the listening address. */
  publicUrl?: string | undefined;
}

/**
 * The query parameters a FHIR type search defines (what lenient handling keeps); `undefined`
 * for the other operations, which keep refusing unknown parameters. `url` is the full path.
 */
function searchParameters(route: RouteDefinition, url: string): ReadonlySet<string> | undefined {
  if (!isTypeSearch(route.method, url)) return undefined;
  return new Set(route.parameters.filter((p) => p.in === 'query').map((p) => p.name));
}

/**
 * A form-encoded search body's fields added to the query (FHIR lets a `POST _search` carry
 * parameters in both), and the body emptied: from here on it is the same search as the GET.
 */
function mergeFormBody(request: FastifyRequest): Record<string, unknown> {
  const query: Record<string, unknown> = Object.assign(Object.create(null), request.query);
  const form = request.body;
  if (form !== null && typeof form === 'object') {
    for (const [name, value] of Object.entries(form)) {
      const before = query[name];
      query[name] = before === undefined ? value : [before, value].flat();
    }
  }
  request.body = {};
  return query;
}

/**
 * Registers the FHIR face; call as `app.register(fhirPlugin, { prefix: FHIR_BASE, … })` so
 * unknown URLs under the base get an OperationOutcome too.
 */
export async function fhirPlugin(app: FastifyInstance, options: FhirPluginOptions): Promise<void> {
  const { deps } = options;
  app.addContentTypeParser(
    'application/fhir+json',
    { parseAs: 'buffer' },
    (request, body, done) => {
      try {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        done(null, parseJsonBody(bytes, request.headers['content-type']));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  // `POST [type]/_search` (FHIR R4 search.html): parameters as a form, so they stay out of URLs.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, parseQueryString(typeof body === 'string' ? body : body.toString('utf8')));
    },
  );
  app.setErrorHandler((error, request, reply) => sendOutcome(deps, request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendOutcome(deps, request, reply, new ApiError('route_missing')),
  );
  // The shared route code sends JSON as application/json; FHIR's type is fhir+json.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('application/json')) {
      reply.header('content-type', FHIR_JSON);
    }
    done(null, payload);
  });
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkAcceptable(request.query, request.headers.accept);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  // Routes are registered under the plugin's prefix, so their URLs drop it here.
  const routes = options.routes.map((route) => ({
    ...route,
    url: route.url.slice(FHIR_BASE.length),
  }));
  registerRoutes(app, routes, options.handlers, { ...deps, prepare: preparing(options) });
}

/**
 * Each FHIR route's first step, made once per route with what it needs (whether it reads a
 * form, the parameters it defines): a form-encoded `POST [type]/_search` body becomes the
 * query, lenient handling sets the parameters it ignores aside, and the base the reply's links
 * are built on is worked out; all of it travels on the query object (`request-info.ts`).
 */
function preparing(options: FhirPluginOptions) {
  // `route.url` is under the plugin's prefix here.
  return (route: RouteDefinition) => {
    const names = searchParameters(route, `${FHIR_BASE}${route.url}`);
    const form = route.url.endsWith('/_search');
    return (request: FastifyRequest): void => {
      let query = request.query as Record<string, unknown>;
      if (form) {
        query = mergeFormBody(request);
        // The URL's `_format` was judged in `onRequest`, before the body was read; a form's
        // is judged the same way here, before validation, so XML is 406 however asked.
        checkAcceptable(query, undefined);
      }
      let ignored: string[] = [];
      if (names !== undefined && !prefersStrict(request.headers.prefer)) {
        ({ query, ignored } = lenientQuery(query, names));
      }
      attachRequestInfo(query, { base: fhirBaseUrl(options.publicUrl, request.socket), ignored });
      request.query = query;
    };
  };
}
