/**
 * Registers every operation of the route table. Per request, in this order:
 * auth (key, IP allowlist) → rate limit → authorization (kind, scopes) → validation →
 * idempotency → handler → reply, whose status must be one the route lists.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { ApiError, errorEnvelope, isApiError } from '../errors.js';
import { ipAllowed } from '../keys/index.js';
import { type AuthenticatedKey, authorize, identifyKey } from './auth.js';
import { createContext, type HandlerContext, type ReplyLike } from './context.js';
import {
  type IdempotencyRecord,
  pathOf,
  readIdempotencyKey,
  requestHash,
  startIdempotent,
} from './idempotency.js';
import { keyBucket, keyRate, takeRequestToken } from './rate-limit.js';
import type { HandlerRequest, RouteDefinition } from './route-types.js';
import type { AuditSink, HttpStore } from './store.js';
import { compileRouteValidator, type Validators } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, set by the route's `onRequest` hook. */
    apiKey: AuthenticatedKey | null;
  }
}

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
export interface RegisterDeps {
  db: Db;
  store: HttpStore;
  audit: AuditSink | null;
  clock: () => number;
  rateLimits: RateLimitConfig;
  validators: Validators;
}

const ID_SHAPE = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Whether a status is one the route lists (`200`, `4XX`, `default`). */
export function statusListed(route: RouteDefinition, status: number): boolean {
  if (!Number.isInteger(status) || status < 100 || status > 599) return false;
  const listed = Object.keys(route.schemas.response);
  const text = String(status);
  return listed.some((s) => s === text || s.toUpperCase() === `${text[0]}XX` || s === 'default');
}

/** Sends a JSON reply; `body` is a value, or already-serialised JSON text (replays). */
function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  reply.code(status);
  if (status === 204 || status === 304 || body === undefined) return reply.send();
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return reply.header('content-type', 'application/json; charset=utf-8').send(text);
}

/** Registers one route per operation that has a handler; a missing handler is an error. */
export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
  handlers: HandlerTable,
  deps: RegisterDeps,
): void {
  for (const route of routes) {
    const handler = handlers[route.operationId];
    if (handler === undefined) {
      throw new Error(`No handler for operation ${route.operationId}`);
    }
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
  const validate = compileRouteValidator(route, deps.validators);

  /** Records a refused call by a known key (api.md §11: denied attempts are audited). */
  const auditDenied = (request: FastifyRequest, key: AuthenticatedKey): void => {
    const id = (request.params as Record<string, unknown> | undefined)?.id;
    try {
      deps.audit?.push({
        keyId: key.id,
        operationId: route.operationId,
        // Only a well-formed id: the path segment is client text and could be anything.
        objectIds: typeof id === 'string' && ID_SHAPE.test(id) ? [id] : [],
        requestId: request.id,
        clientIp: request.ip,
        outcome: 'denied',
        at: clock(),
      });
    } catch (error) {
      request.log.error({ err: error }, 'could not audit a denied request');
    }
  };

  const onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = await identifyKey(db, store, request.headers.authorization, clock());
    if (key.kind === 'secret' || key.kind === 'restricted') {
      if (!ipAllowed(key.allowedIps, request.ip)) {
        auditDenied(request, key);
        // Counted against the address, not the key: a stolen key used from elsewhere must not
        // use up its owner's rate limit.
        throw new ApiError('ip_not_allowed');
      }
    }
    await takeRequestToken(
      db,
      store,
      reply,
      keyBucket(key),
      keyRate(key, deps.rateLimits),
      clock(),
    );
    request.apiKey = key;
    try {
      authorize(route, key);
    } catch (error) {
      auditDenied(request, key);
      throw error;
    }
  };

  const checkStatus = (request: FastifyRequest) => (status: number) => {
    if (statusListed(route, status)) return;
    request.log.error(
      { operationId: route.operationId, status },
      'handler returned a status the spec does not list',
    );
    throw new ApiError('internal');
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const key = request.apiKey!;
    // No body is the same as an empty one: every field absent.
    if (request.body === undefined && route.schemas.body !== undefined) request.body = {};
    const parts = {
      params: request.params,
      query: request.query,
      body: request.body,
      headers: request.headers as Record<string, unknown>,
    };
    validate(parts);

    const idempotencyKey =
      route.method === 'POST' ? readIdempotencyKey(request.headers['idempotency-key']) : undefined;
    let record: IdempotencyRecord | null = null;
    if (idempotencyKey !== undefined) {
      const start = await startIdempotent(db, store, {
        keyId: key.id,
        livemode: key.livemode,
        idempotencyKey,
        requestHash: requestHash(route.method, pathOf(request.url), parts.body),
        nowMs: clock(),
      });
      if (start.kind === 'replay') {
        reply.header('Idempotent-Replayed', 'true');
        return sendJson(reply, start.status, start.bodyText);
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
    });

    let result: ReplyLike;
    try {
      result = await handler(parts as HandlerRequest<never, never, never, never>, ctx);
      const status = Number(result.status);
      check(status);
      if (record !== null && !record.completed) {
        // A handler that did not write (a search) still has its first answer stored.
        await store.completeIdempotent(db, { ...record.args, status, body: result.body ?? null });
        record.completed = true;
      }
    } catch (error) {
      if (record !== null && !record.completed) await settleFailed(request, record, error);
      throw error;
    }
    for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
    return sendJson(reply, Number(result.status), result.body);
  };

  /**
   * A handler's own 4xx answer is its result and is stored like any other; after an unexpected
   * error the key is released (nothing was committed) so the client can retry with it.
   */
  const settleFailed = async (
    request: FastifyRequest,
    record: IdempotencyRecord,
    error: unknown,
  ): Promise<void> => {
    try {
      if (isApiError(error) && error.statusCode < 500) {
        await store.completeIdempotent(db, {
          ...record.args,
          status: error.statusCode,
          body: errorEnvelope(error, request.id),
        });
      } else {
        await store.abandonIdempotent(db, record.args);
      }
      record.completed = true;
    } catch (storeError) {
      request.log.error({ err: storeError }, 'could not settle the idempotency record');
    }
  };

  app.route({
    method: route.method,
    url: route.url,
    config: { operationId: route.operationId },
    onRequest,
    handler: handle,
  });
}
