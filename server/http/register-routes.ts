/**
 * Registers every operation of the route table. Authentication, IP allowlist and rate limit
 * run first for every request (`authenticationHook`); per route: key kind and scopes, version
 * (`routeGuard`) → body parsing (415/413/400) → validation → idempotency → handler → reply,
 * whose status must be one the route lists. Dated versions are a step given by the caller
 * (`version-step.ts`, for `/v1`): without one, every request is validated and answered in the
 * route table's own shape, as the FHIR face is.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HandlerRequest, RouteDefinition } from '../../contract/route-types.js';
import { ApiError } from '../errors.js';
import { createContext, type HandlerContext, publicContext, type ReplyLike } from './context.js';
import { type HookDeps, routeGuard } from './hooks.js';
import {
  type IdempotencyRecord,
  idempotencyNamespace,
  pathOf,
  readIdempotencyKey,
  requestHash,
  startIdempotent,
} from './idempotency.js';
import { compileRouteValidator, type Validators } from './validation.js';
import { namingVersion } from './validation-errors.js';
import type { VersionStep } from './version-step.js';

/**
 * A handler as the server calls it. `never` request parts make every generated
 * `Handler<Op, HandlerContext>` assignable here, whatever its operation's types.
 */
export type AnyHandler = (
  request: HandlerRequest<never, never, never, never>,
  ctx: HandlerContext,
) => Promise<ReplyLike> | ReplyLike;

/** Handlers by operationId. */
export type HandlerTable = Readonly<Record<string, AnyHandler>>;

/** What route registration needs from the app. */
export interface RegisterDeps extends HookDeps {
  validators: Validators;
  /** Compile a route's validators on its first request instead of now (`AppOptions.compileValidators`). */
  compileOnFirstUse?: boolean;
  /** `HttpConfig.allowPrivateWebhookTargets`, handed to handlers. */
  allowPrivateWebhookTargets: boolean;
  /** The dated versions' step (`/v1`); absent, requests are taken and answered as the table says. */
  versioning?: VersionStep;
  /**
   * A scope's own step for a route's requests, made once per route and run first in its
   * handler, before validation (the FHIR face: form search bodies, lenient parameters, the
   * base of its links). A step of the handler rather than a Fastify hook, which costs a hook
   * runner and a `request.routeOptions` object per request.
   */
  prepare?: (route: RouteDefinition) => ((request: FastifyRequest) => void) | undefined;
}

/**
 * Whether a status is one the route lists (`200`, `4XX`, `default`). 501 is let through too:
 * it is what generated handler stubs answer until their operation is written. So is a GET's
 * 304 (a conditional read, `If-None-Match`): it has no body, and the route table keeps only
 * responses with one.
 */
export function statusListed(route: RouteDefinition, status: number): boolean {
  if (!Number.isInteger(status) || status < 100 || status > 599) return false;
  if (status === 501 || (status === 304 && route.method === 'GET')) return true;
  const text = String(status);
  return Object.keys(route.schemas.response).some(
    (s) => s === text || s.toUpperCase() === `${text[0]}XX` || s === 'default',
  );
}

const sameBody = (body: unknown): unknown => body;

/** Sends a JSON reply; `body` is a value, or already-serialised JSON text (replays). */
function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  reply.code(status);
  if (status === 204 || status === 304 || body === undefined) return reply.send();
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return reply.header('content-type', 'application/json; charset=utf-8').send(text);
}

/** Error bodies built by handlers (the 501 of a stub) get the request's id filled in. */
function withRequestId(body: unknown, requestId: string): unknown {
  const error = (body as { error?: { request_id?: unknown } } | null)?.error;
  if (error === undefined || error === null || typeof error !== 'object') return body;
  if (error.request_id !== null && error.request_id !== undefined) return body;
  return { ...(body as object), error: { ...error, request_id: requestId } };
}

/** The route's request validator, compiled now or on its first call (`compileOnFirstUse`). */
function routeValidator(
  route: RouteDefinition,
  deps: RegisterDeps,
): ReturnType<typeof compileRouteValidator> {
  if (deps.compileOnFirstUse !== true) return compileRouteValidator(route, deps.validators);
  let compiled: ReturnType<typeof compileRouteValidator> | undefined;
  return (parts) => {
    compiled ??= compileRouteValidator(route, deps.validators);
    return compiled(parts);
  };
}

/** Registers one route per operation; an operation without a handler is an error. */
export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
  handlers: HandlerTable,
  deps: RegisterDeps,
): void {
  for (const route of routes) {
    const handler = handlers[route.operationId];
    if (handler === undefined) throw new Error(`No handler for operation ${route.operationId}`);
    registerRoute(app, route, handler, deps);
  }
}

function registerRoute(
  app: FastifyInstance,
  route: RouteDefinition,
  handler: AnyHandler,
  deps: RegisterDeps,
): void {
  const { db, store, clock } = deps;
  const validate = routeValidator(route, deps);
  const hasBody = route.schemas.body !== undefined;
  const prepare = deps.prepare?.(route);

  // Statuses are checked on every reply; each one's answer is worked out once per route.
  const listed = new Map<number, boolean>();
  const checkStatus = (request: FastifyRequest) => (status: number) => {
    let ok = listed.get(status);
    if (ok === undefined) {
      ok = statusListed(route, status);
      listed.set(status, ok);
    }
    if (ok) return;
    request.log.error(
      { operationId: route.operationId, status },
      'handler returned a status the spec does not list',
    );
    throw new ApiError('internal');
  };

  /** The spec stores only a committed write's response; anything else frees the key. */
  const release = async (request: FastifyRequest, record: IdempotencyRecord): Promise<void> => {
    if (record.completed) return;
    try {
      await store.abandonIdempotent(db, record.args);
    } catch (error) {
      request.log.error({ err: error }, 'could not release the idempotency key');
    }
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const key = request.apiKey;
    // routeGuard (onRequest) has already refused a request without a key; this keeps the type.
    if (key === null) throw new ApiError('api_key_missing');
    prepare?.(request);
    if (hasBody && request.body === undefined) {
      // The spec: every POST takes a JSON object body (`{}` when there is nothing to send).
      throw new ApiError('body_invalid_json', {
        message: 'This operation takes a JSON object body; send {} when there is nothing to send.',
      });
    }
    const parts = {
      params: request.params,
      query: request.query,
      body: request.body,
      headers: request.headers as Record<string, unknown>,
    };
    // Handlers speak the latest version only: an older request is judged by its version's
    // document and migrated up, and its answer rendered back in it. The latest skips both.
    const step = deps.versioning;
    const version = step === undefined ? null : (request.apiVersion ?? step.latest);
    let out = sameBody;
    try {
      if (step === undefined || version === null || version === step.latest) validate(parts);
      else {
        const accepted = step.accept(route, version, parts);
        if (accepted !== undefined) await accepted;
        out = step.out(version);
      }
    } catch (error) {
      // A time in another version's form: the message says which version judged it.
      throw version === null ? error : namingVersion(error, version);
    }

    const idempotencyKey =
      route.method === 'POST' ? readIdempotencyKey(request.headers['idempotency-key']) : undefined;
    let record: IdempotencyRecord | null = null;
    if (idempotencyKey !== undefined) {
      const start = await startIdempotent(
        db,
        store,
        {
          namespace: idempotencyNamespace(key),
          livemode: key.livemode,
          idempotencyKey,
          requestHash: requestHash(route.method, pathOf(request.url), parts.body),
          nowMs: clock(),
          keyId: key.id,
        },
        route.operationId,
      );
      if (start.kind === 'replay') {
        reply.header('Idempotent-Replayed', 'true');
        // Stored in the latest shape; answered in the version asked for now.
        return sendJson(reply, start.status, out(start.bodyText));
      }
      record = start.record;
    }

    const check = checkStatus(request);
    const ctx = createContext({
      db,
      store,
      audit: deps.audit,
      clock,
      key,
      requestId: request.id,
      idempotencyKey: idempotencyKey ?? null,
      clientIp: request.ip,
      operationId: route.operationId,
      log: request.log,
      idempotency: record,
      checkStatus: check,
      allowPrivateWebhookTargets: deps.allowPrivateWebhookTargets,
      ...(version === null ? {} : { apiVersion: version }),
      actor: request.actor,
    });

    let result: ReplyLike;
    try {
      result = await handler(parts as HandlerRequest<never, never, never, never>, ctx);
      check(Number(result.status));
    } finally {
      if (record !== null) await release(request, record);
    }
    // On record before the answer leaves: a read's audit rows are committed (in the batch
    // they joined, a few ms) before any of it is sent; a failed batch answers 503 instead.
    const recorded = ctx.recorded();
    if (recorded !== undefined) await recorded;
    for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
    return sendJson(reply, Number(result.status), out(withRequestId(result.body, request.id)));
  };

  if (route.public === true) {
    app.route({
      method: route.method,
      url: route.url,
      // `public`: the authentication hook counts it against the client's anonymous bucket
      // instead of asking for a key; no key guard, no idempotency.
      config: { operationId: route.operationId, public: true },
      handler: publicHandler(route, handler, validate, deps, prepare),
    });
    return;
  }
  app.route({
    method: route.method,
    url: route.url,
    config: { operationId: route.operationId },
    onRequest: routeGuard(route, deps),
    handler: handle,
  });
}

/** The handler of a public operation: validation, the handler, a listed status. */
function publicHandler(
  route: RouteDefinition,
  handler: AnyHandler,
  validate: ReturnType<typeof compileRouteValidator>,
  deps: RegisterDeps,
  prepare: ((request: FastifyRequest) => void) | undefined,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    prepare?.(request);
    const parts = {
      params: request.params,
      query: request.query,
      body: request.body,
      headers: request.headers as Record<string, unknown>,
    };
    validate(parts);
    const ctx = publicContext({
      db: deps.db,
      clock: deps.clock,
      requestId: request.id,
      clientIp: request.ip,
      operationId: route.operationId,
      log: request.log,
    });
    const result = await handler(parts as HandlerRequest<never, never, never, never>, ctx);
    const status = Number(result.status);
    if (!statusListed(route, status)) {
      request.log.error(
        { operationId: route.operationId, status },
        'handler returned a status the spec does not list',
      );
      throw new ApiError('internal');
    }
    for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
    // Probes must see the current state, never a cached one.
    reply.header('Cache-Control', 'no-store');
    return sendJson(reply, status, withRequestId(result.body, request.id));
  };
}
