/**
 * The checks that run before a request's body is read, in the spec's order ("Order of
 * checks"): authentication (401) → IP allowlist (403) → rate limit (429) → route (404, by
 * Fastify's router) → key kind and scope (403) → `PatientCare-Version` (400). Media type, size
 * and JSON syntax follow in Fastify's body parsing; parameters and idempotency in the handler.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDefinition } from '../../contract/route-types.js';
import type { RateLimitConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { ApiError } from '../errors.js';
import { cachedAccountApiVersion, lastReadAccountApiVersion } from '../keys/account.js';
import { keyCacheNow } from '../keys/cache.js';
import { ipAllowed } from '../keys/index.js';
import { actorIfValid, requestActor } from './actor.js';
import { type AuthenticatedKey, authorize, identifyKey } from './auth.js';
import { answerPreflight, checkOrigin } from './cors.js';
import { MemoryBuckets } from './probe-limit.js';
import {
  anonymousBucket,
  answerFromBucket,
  keyBucket,
  keyRate,
  takeRequestToken,
} from './rate-limit.js';
import type { AuditSink, HttpStore } from './store.js';
import { namedVersion, negotiateVersion } from './version.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, set by the authentication hook; null on public routes. */
    apiKey: AuthenticatedKey | null;
    /** The dated version this request is served in (`routeGuard`); null before it ran. */
    apiVersion: string | null;
    /** The account's pinned API version (authentication hook); null when not pinned. */
    pinnedVersion: string | null;
    /** The person or system acting (`PatientCare-Actor`, `routeGuard`); null: none named. */
    actor: string | null;
  }
}

/** What the hooks need from the app. */
export interface HookDeps {
  db: Db;
  store: HttpStore;
  audit: AuditSink | null;
  clock: () => number;
  rateLimits: RateLimitConfig;
  apiVersions: readonly string[];
}

const ID_SHAPE = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;

function routeConfig(request: FastifyRequest): { operationId?: string; public?: boolean } {
  return (request.routeOptions.config ?? {}) as { operationId?: string; public?: boolean };
}

/** The health probes: limited in memory, never by the database (see `probe-limit.ts`). */
const PROBES: ReadonlySet<string> = new Set(['checkLiveness', 'checkReadiness']);

/** Records a refused call by a known key (docs/design.md#phi: denied attempts are audited too). */
function auditDenied(deps: HookDeps, request: FastifyRequest, key: AuthenticatedKey): void {
  const operationId = routeConfig(request).operationId;
  if (deps.audit === null || operationId === undefined) return;
  const id = (request.params as Record<string, unknown> | undefined)?.id;
  try {
    deps.audit.push({
      keyId: key.id,
      operationId,
      // Only a well-formed id: the path segment is client text and could be anything.
      objectIds: typeof id === 'string' && ID_SHAPE.test(id) ? [id] : [],
      requestId: request.id,
      clientIp: request.ip,
      outcome: 'denied',
      at: deps.clock(),
      // Null when refused before the version was chosen: the report counts it as unrecorded.
      apiVersion: request.apiVersion,
      // Refused before the actor was checked: it is recorded when acceptable, else left out.
      actor: actorIfValid(request.headers['patientcare-actor'], key),
    });
  } catch (error) {
    request.log.error({ err: error }, 'could not audit a denied request');
  }
}

/**
 * Global `onRequest`: every response gets `Request-Id` and `PatientCare-Version` (API responses
 * also `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`); every
 * non-public request (unknown routes included, so probing paths needs a key) is authenticated,
 * checked against the key's IP allowlist and counted against its rate limit. Public routes are
 * counted against the client address's anonymous bucket.
 */
export function authenticationHook(deps: HookDeps) {
  const probeBuckets = new MemoryBuckets();
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> => {
    reply.header('Request-Id', request.id);
    // The version of every answer, the refusals below (401, 403, 429, a preflight, 404)
    // included, is the supported version the header names, else the account's pin, else the
    // latest; `routeGuard` settles it for a request that reaches its route. The pin is the
    // database's, so it is known before the key (cached for a second, one read in flight).
    const named = namedVersion(request.headers['patientcare-version'], deps.apiVersions);
    request.apiVersion = named;
    const config = routeConfig(request);
    const probe = config.public === true && PROBES.has(config.operationId ?? '');
    // A failed read of the pin: refusals are still answered (in the last pin read), but no
    // request is served in a version that may not be its own (rethrown once the key is known).
    let pinFailure: unknown;
    if (named === null) {
      // Health probes never wait on the database: the pin last read, if any.
      const pin = probe
        ? lastReadAccountApiVersion(deps.db)
        : cachedAccountApiVersion(deps.db, keyCacheNow());
      if (pin instanceof Promise) {
        try {
          request.pinnedVersion = await pin;
        } catch (error) {
          pinFailure = error;
          request.pinnedVersion = lastReadAccountApiVersion(deps.db);
        }
      } else request.pinnedVersion = pin;
    }
    reply.header(
      'PatientCare-Version',
      named ?? negotiateVersion(undefined, deps.apiVersions, request.pinnedVersion),
    );
    if (probe) {
      const rps = deps.rateLimits.anonymousRps;
      answerFromBucket(reply, probeBuckets.take(anonymousBucket(request.ip), rps, deps.clock()));
      return;
    }
    if (config.public === true) {
      // No key needed (docs, spec, health), but the per-client bucket of requests without a
      // key still applies: an anonymous route must not be a way around the rate limit.
      const limited = takeRequestToken(
        deps.db,
        deps.store,
        reply,
        anonymousBucket(request.ip),
        deps.rateLimits.anonymousRps,
        deps.clock(),
      );
      if (limited !== undefined) await limited;
      return;
    }
    // API answers carry PHI: no shared or browser cache may keep them, and no browser may
    // sniff them into something other than JSON.
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    if (answerPreflight(request, reply)) return reply.send();
    const key = await identifyKey(deps.db, deps.store, request.headers.authorization, deps.clock());
    // Served in a version only when its pin was read: else a 503, as the database is out.
    if (pinFailure !== undefined) throw pinFailure;
    if (
      (key.kind === 'secret' || key.kind === 'restricted') &&
      !ipAllowed(key.allowedIps, request.ip)
    ) {
      auditDenied(deps, request, key);
      // Counted against the address, not the key: a stolen key used from elsewhere must not
      // use up its owner's rate limit.
      throw new ApiError('ip_not_allowed');
    }
    // Served from this process's token lease, the limiter answers at once (no promise).
    const limited = takeRequestToken(
      deps.db,
      deps.store,
      reply,
      keyBucket(key),
      keyRate(key, deps.rateLimits),
      deps.clock(),
    );
    if (limited !== undefined) await limited;
    request.apiKey = key;
    try {
      checkOrigin(request, key);
    } catch (error) {
      auditDenied(deps, request, key);
      throw error;
    }
  };
}

/**
 * Route-level `onRequest`: the key's kind and scopes for this operation, then the version,
 * then the actor (`PatientCare-Actor`, which a key may require).
 */
export function routeGuard(route: RouteDefinition, deps: HookDeps) {
  // Synchronous (`done`, not async): nothing here waits, and a promise per request costs.
  // Fastify catches what the body throws and answers it like a rejected hook.
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    const key = request.apiKey;
    if (key === null) throw new ApiError('api_key_missing');
    try {
      authorize(route, key);
    } catch (error) {
      auditDenied(deps, request, key);
      throw error;
    }
    let version: string;
    try {
      version = negotiateVersion(
        request.headers['patientcare-version'],
        deps.apiVersions,
        request.pinnedVersion,
      );
    } catch (error) {
      // An unknown date is refused in the version the request gets without the header (the
      // account's pin, else the latest): a client pinned by its account keeps its contract.
      const fallback = negotiateVersion(undefined, deps.apiVersions, request.pinnedVersion);
      request.apiVersion = fallback;
      reply.header('PatientCare-Version', fallback);
      throw error;
    }
    request.apiVersion = version;
    reply.header('PatientCare-Version', version);
    request.actor = requestActor(request.headers['patientcare-actor'], key);
    done();
  };
}
