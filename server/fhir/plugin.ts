/**
 * The FHIR R4 face as a Fastify plugin scope (docs/design.md#fhir-r4): the `/fhir/R4`
 * operations of the route table, registered by the same `registerRoutes` as `/v1` (keys,
 * scopes, validation, idempotency, audit, rate limits are the same code), inside a scope of
 * their own that answers the FHIR way: bodies read as `application/fhir+json` (and
 * `application/json`), replies sent as `application/fhir+json`, every error (hooks,
 * validation, handlers, unknown `/fhir/R4` URLs) an `OperationOutcome`, never the `/v1`
 * envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDefinition } from '../../contract/route-types.js';
import { ApiError } from '../errors.js';
import { type ErrorDeps, prepareErrorReply, toApiError } from '../http/error-handler.js';
import { parseJsonBody } from '../http/json-body.js';
import { type HandlerTable, type RegisterDeps, registerRoutes } from '../http/register-routes.js';
import { FhirError, fhirErrorReply } from './errors.js';

/** Where the FHIR face lives. */
export const FHIR_BASE = '/fhir/R4';
/** FHIR's JSON media type, what every FHIR reply is sent as. */
export const FHIR_JSON = 'application/fhir+json; charset=utf-8';

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
  if (first.statusCode >= 500) {
    request.log.error({ err: error }, 'request failed with an unexpected error');
  }
  const answer = fhirErrorReply(await prepareErrorReply(deps, request, reply, first));
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
  // Routes are registered under the plugin's prefix, so their URLs drop it here.
  const routes = options.routes.map((route) => ({
    ...route,
    url: route.url.slice(FHIR_BASE.length),
  }));
  registerRoutes(app, routes, options.handlers, deps);
}
