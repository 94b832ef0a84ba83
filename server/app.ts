/**
 * `buildApp` assembles the Patient-Care service without listening (tests use `app.inject()`;
 * `server/main.ts` listens). Routes come from the generated route table, handlers from
 * `server/handlers/`; both can be passed in, so the HTTP layer is testable with a small table.
 */
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { RouteDefinition } from '../contract/route-types.js';
import {
  DEFAULT_HTTP_CONFIG,
  type HttpConfig,
  type RateLimitConfig,
  type RetentionConfig,
} from './config.js';
import type { Db } from './db/types.js';
import type { DocsPluginOptions } from './docs/plugin.js';
import { FHIR_BASE, fhirPlugin, isFhirRoute, sendOutcome } from './fhir/plugin.js';
import { clientErrorHandler } from './http/client-errors.js';
import { addCorsHeaders, registerPreflightRoutes } from './http/cors.js';
import { addDeprecationHeaders, deprecationHeaders } from './http/deprecation.js';
import { type ErrorFace, errorSender, installErrorHandling } from './http/error-handler.js';
import { authenticationHook } from './http/hooks.js';
import { parseJsonBody } from './http/json-body.js';
import { type LogSetting, loggerOptions, logRequestCompleted } from './http/logging.js';
import { parseQueryString } from './http/querystring.js';
import { type HandlerTable, registerRoutes } from './http/register-routes.js';
import type { AuditSink, HttpStore } from './http/store.js';
import { serverTimeoutOptions } from './http/timeouts.js';
import { type ComponentSchemas, createValidators } from './http/validation.js';
import { createVersionStep, type VersionTableSource } from './http/version-step.js';
import { newId } from './ids.js';
import { fillRulesOf, useFillRules } from './repos/stored-shape.js';
import { type RetentionScheduler, startRetention } from './retention/scheduler.js';
import { versions } from './versioning/index.js';

/**
 * A check of each answer before it is sent (`payload`: the serialised body), which may log but
 * never changes the answer: `npm run dev`'s host passes one (tooling/dev/response-check.ts).
 */
export type ResponseCheck = (
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
) => Promise<void>;

/** Options of `buildApp`; only `db` is required. */
export interface AppOptions {
  db: Db;
  /** HTTP settings; unset fields take `DEFAULT_HTTP_CONFIG`. */
  config?: Partial<Omit<HttpConfig, 'rateLimits'>> & { rateLimits?: Partial<RateLimitConfig> };
  /** Epoch milliseconds; tests pass a fixed or stepping clock. Default `Date.now`. */
  clock?: () => number;
  /** The route table; default `routes` from `generated/routes.ts`. */
  routes?: readonly RouteDefinition[];
  /** Component schemas the route schemas `$ref`; default from `generated/routes.ts`. */
  componentSchemas?: ComponentSchemas;
  /**
   * An older version's route table, which judges requests pinned to it; default the generated
   * one (`generated/versions/DATE/`), or `routes` itself when a table was given.
   */
  versionTables?: VersionTableSource;
  /** Handlers by operationId; default `handlers` from `server/handlers/index.ts`. */
  handlers?: HandlerTable;
  /** Storage functions; default the repositories in `server/keys` and `server/repos`. */
  store?: HttpStore;
  /** Where read audit rows go (batched); null to drop them (tests of other concerns). */
  audit?: AuditSink | null;
  /** Logging; default off (tests), `server/main.ts` turns it on. */
  logger?: LogSetting;
  /** Serve the API reference (`/docs`, `/openapi.json`, `GET /`) from prepared files. */
  docs?: DocsPluginOptions;
  /**
   * Purge expired rows on this schedule while the app is up (from `ready` until `close`);
   * unset, nothing is purged (tests of other concerns). `server/main.ts` always passes it.
   */
  retention?: RetentionConfig;
  /**
   * Checks every answer against its version's document; unset (the default, and always in
   * `npm start`), none is. Only the `npm run dev` host sets it (server/service-host.ts).
   */
  responseCheck?: ResponseCheck;
  /**
   * When each route's request validators are compiled: `eager` (the default, and always in
   * `npm start`: a schema Ajv refuses stops the start, and no request pays a compile) or
   * `first-use` (the `npm run dev` host: a save's new app is built in about half the time,
   * 113 → ~60 ms on our spec, and each route compiles on its first request).
   */
  compileValidators?: 'eager' | 'first-use';
}

function resolveConfig(config: AppOptions['config']): HttpConfig {
  return {
    ...DEFAULT_HTTP_CONFIG,
    ...config,
    rateLimits: { ...DEFAULT_HTTP_CONFIG.rateLimits, ...config?.rateLimits },
  };
}

// Loaded on demand, so tests that pass their own table never load the generated one.
async function defaultRouteTable(): Promise<{
  routes: readonly RouteDefinition[];
  componentSchemas: ComponentSchemas;
}> {
  const generated = await import('../generated/routes.js');
  return { routes: generated.routes, componentSchemas: generated.componentSchemas };
}

async function defaultHandlers(): Promise<HandlerTable> {
  const { handlers } = await import('./handlers/index.js');
  return handlerEntries(handlers);
}

/**
 * The functions of a handler map. The map is typed by `HandlerMap` where it is built; the
 * modules it is spread from may also export constants, which are not handlers.
 */
export function handlerEntries(map: object): HandlerTable {
  return Object.fromEntries(
    Object.entries(map).filter(([, value]) => typeof value === 'function'),
  ) as HandlerTable;
}

/** Fastify's `trustProxy` for a setting: a hop count becomes a function of the hop. */
function fastifyTrustProxy(setting: HttpConfig['trustProxy']): boolean | string | TrustHop {
  if (typeof setting === 'number') return (_address: string, hop: number) => hop < setting;
  return setting;
}
type TrustHop = (address: string, hop: number) => boolean;

/** Runs the retention schedule from `ready` until `close`, so closing the app stops it. */
function installRetention(
  app: FastifyInstance,
  db: Db,
  config: RetentionConfig,
  clock: () => number,
): void {
  let retention: RetentionScheduler | undefined;
  app.addHook('onReady', async () => {
    retention = startRetention({ db, config, clock, log: app.log });
  });
  app.addHook('onClose', async () => {
    await retention?.stop();
  });
}

async function defaultStore(): Promise<HttpStore> {
  return (await import('./http/default-store.js')).defaultStore;
}

/**
 * Builds the Fastify instance with every route of the table registered.
 *
 * @example
 * const app = await buildApp({ db: await openDb('sqlite::memory:') });
 * const res = await app.inject({ method: 'GET', url: '/v1/patients' });
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const config = resolveConfig(options.config);
  const clock = options.clock ?? Date.now;
  const table =
    options.routes !== undefined && options.componentSchemas !== undefined
      ? { routes: options.routes, componentSchemas: options.componentSchemas }
      : await defaultRouteTable();
  const routes = options.routes ?? table.routes;
  const componentSchemas = options.componentSchemas ?? table.componentSchemas;
  const handlers = options.handlers ?? (await defaultHandlers());
  const store = options.store ?? (await defaultStore());
  const audit = options.audit ?? null;
  const db = options.db;

  const deps = {
    db,
    store,
    audit,
    clock,
    rateLimits: config.rateLimits,
    apiVersions: config.apiVersions,
  };
  // Errors under /fhir/R4 are OperationOutcomes, router errors included.
  const errorFaces: readonly ErrorFace[] = [{ prefix: FHIR_BASE, send: sendOutcome }];
  const sendAnyError = errorSender(deps, errorFaces);
  const app = Fastify({
    logger: loggerOptions(options.logger ?? false, config.logLevel),
    // One line per request is written by `logRequestCompleted`; Fastify's would show the URL.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId('req'),
    // Request ids are ours; a client-sent id header is not trusted.
    requestIdHeader: false,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: parseQueryString },
    // In-flight requests drain on close; new ones on open connections are still answered.
    return503OnClosing: false,
    // The spec has no HEAD operations; a HEAD would run (and audit) a GET handler.
    exposeHeadRoutes: false,
    // Errors the router raises before any hook (bad percent-encoding, over-long path
    // parameters) get the envelope too, instead of Fastify's own body.
    // The FHIR face's URLs get an OperationOutcome (errorSender chooses by prefix).
    frameworkErrors: (error, request, reply) => void sendAnyError(error, request, reply),
    // Headers, whole-request and keep-alive deadlines, so no client holds a connection open
    // by sending slowly (docs/design.md#timeouts).
    ...serverTimeoutOptions(config),
    // What the HTTP parser refuses (and timeouts) is answered in the envelope too.
    clientErrorHandler: clientErrorHandler(config.apiVersions, db),
  });

  // JSON is the only media type: drop the text/plain parser, and read an empty JSON body as no
  // body (clients send `Content-Type: application/json` on body-less POSTs). The body is read
  // as bytes, so `parseJsonBody` can refuse what is not UTF-8 instead of replacing it.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      done(null, parseJsonBody(bytes, request.headers['content-type']));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.decorateRequest('apiKey', null);
  app.decorateRequest('apiVersion', null);
  app.decorateRequest('pinnedVersion', null);
  app.decorateRequest('actor', null);
  app.addHook('onRequest', authenticationHook(deps));
  // Hooks that never wait are written with `done`: an async hook costs a promise and a
  // microtask turn per request, which shows at thousands of requests a second.
  app.addHook('onResponse', (request, reply, done) => {
    logRequestCompleted(request, reply);
    done();
  });
  // During shutdown, a response still in flight closes its keep-alive connection; otherwise
  // the idle connection left behind would hold `close()` open until the client hangs up.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const retiring = deprecationHeaders(versions);
  app.addHook('onSend', (request, reply, payload, done) => {
    addCorsHeaders(request, reply);
    if (retiring.size > 0) addDeprecationHeaders(reply, retiring);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  const responseCheck = options.responseCheck;
  if (responseCheck !== undefined) {
    app.addHook('onSend', async (request, reply, payload) => {
      await responseCheck(request, reply, payload);
      return payload;
    });
  }
  installErrorHandling(app, deps, errorFaces);
  if (options.retention !== undefined) installRetention(app, db, options.retention, clock);
  // Stored rows answer the fields this table's schemas added since they were written.
  useFillRules(fillRulesOf(componentSchemas));
  const registerDeps = {
    ...deps,
    allowPrivateWebhookTargets: config.allowPrivateWebhookTargets,
    validators: createValidators(componentSchemas),
    compileOnFirstUse: options.compileValidators === 'first-use',
  };
  // Dated versions are a step of `/v1` only; the FHIR face below never passes through it.
  registerRoutes(
    app,
    routes.filter((route) => !isFhirRoute(route)),
    handlers,
    {
      ...registerDeps,
      versioning: createVersionStep(
        options.versionTables ??
          (options.routes === undefined
            ? undefined
            : async () => ({ routes: options.routes ?? [], componentSchemas })),
      ),
    },
  );
  // The FHIR face: same pipeline, its own scope for media type and OperationOutcome errors.
  const fhirRoutes = routes.filter(isFhirRoute);
  if (fhirRoutes.length > 0) {
    await app.register(fhirPlugin, {
      prefix: FHIR_BASE,
      routes: fhirRoutes,
      handlers,
      deps: registerDeps,
      publicUrl: config.publicUrl,
    });
  }
  registerPreflightRoutes(app, routes);

  if (options.docs) {
    // Loaded only when asked for (a chunk of its own in the bundle), so the API alone starts lean.
    const { docsPlugin } = await import('./docs/plugin.js');
    await app.register(docsPlugin, options.docs);
  }
  return app;
}
