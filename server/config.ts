/**
 * The service's settings, read from the environment once at start. Invalid values stop the
 * process with a message naming the variable, never a stack trace.
 */
import { isLoopback } from './webhooks/ip-ranges.js';

/** Token-bucket rates per key, in requests per second (docs/design.md#rate-limits). */
export interface RateLimitConfig {
  /** Live keys (`sk_live_`, `rk_live_`, …). Default 100. */
  liveRps: number;
  /** Test keys. Default 25. */
  testRps: number;
  /** Requests without a valid key, per client IP. Default: the test rate. */
  anonymousRps: number;
}

/**
 * Which proxies may set `X-Forwarded-For`. `false` (default): the client address is the
 * socket's. `true`: trust every hop. A number: trust that many hops. A string: comma-separated
 * addresses or CIDR ranges of trusted proxies (Fastify's `trustProxy`).
 */
export type TrustProxy = boolean | number | string;

/** Settings of the HTTP layer (`buildApp`). */
export interface HttpConfig {
  rateLimits: RateLimitConfig;
  trustProxy: TrustProxy;
  /** Largest accepted request body, in bytes. Default 1 MiB (spec/openapi.yaml "Basics": 413). */
  bodyLimit: number;
  /** pino level, or `silent`. */
  logLevel: string;
  /** Dated `PatientCare-Version` values the service accepts; the first is the current one. */
  apiVersions: readonly string[];
  /**
   * Webhook endpoints may target loopback, private and unique-local addresses (in both
   * modes). Default false; `loadConfig` turns it on when the service listens on loopback.
   */
  allowPrivateWebhookTargets: boolean;
}

/** Settings of the process (`server/main.ts`). */
export interface ServerConfig extends HttpConfig {
  host: string;
  port: number;
  /** `sqlite:PATH`, `sqlite::memory:` or `postgres://…`; `undefined` = the default SQLite file. */
  databaseUrl: string | undefined;
  /** How long shutdown waits for in-flight requests before closing connections, in ms. */
  shutdownGraceMs: number;
}

/** The dated API version this build implements (`info.version` in the spec). */
export const CURRENT_API_VERSION = '2026-11-01';

/** Defaults for everything `buildApp` takes. */
export const DEFAULT_HTTP_CONFIG: HttpConfig = {
  rateLimits: { liveRps: 100, testRps: 25, anonymousRps: 25 },
  trustProxy: false,
  bodyLimit: 1024 * 1024,
  logLevel: 'info',
  apiVersions: [CURRENT_API_VERSION],
  allowPrivateWebhookTargets: false,
};

/** A setting that cannot be used; `main` prints its message and exits. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

function positiveNumber(env: Env, name: string, fallback: number, integer = false): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new ConfigError(`${name} must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return value;
}

function port(env: Env): number {
  const raw = env.PORT;
  if (raw === undefined || raw.trim() === '') return 4010;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new ConfigError('PORT must be an integer from 0 to 65535');
  }
  return value;
}

function trustProxy(env: Env): TrustProxy {
  const raw = env.TRUSTED_PROXY?.trim();
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/**
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS` (`true`/`false`): whether webhook endpoints may point at
 * loopback or private addresses. Unset, it is on only when HOST (default 127.0.0.1) is a
 * loopback address: a development server reaches a receiver on the same machine, while a
 * hosted one never lets a key probe its network. The server and `npm run worker` read it
 * alike, so creation and delivery judge URLs the same way.
 */
export function allowPrivateWebhookTargets(env: Env): boolean {
  const raw = env.WEBHOOK_ALLOW_PRIVATE_TARGETS?.trim().toLowerCase();
  if (raw === undefined || raw === '') {
    const host = (env.HOST?.trim() || '127.0.0.1').replace(/^\[|\]$/g, '');
    return host === 'localhost' || isLoopback(host);
  }
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError('WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false');
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * Reads the environment.
 *
 * HOST (127.0.0.1), PORT (4010), DATABASE_URL, TRUSTED_PROXY, RATE_LIMIT_LIVE (100),
 * RATE_LIMIT_TEST (25), RATE_LIMIT_ANONYMOUS (test rate), LOG_LEVEL (info),
 * SHUTDOWN_GRACE_MS (10000), WEBHOOK_ALLOW_PRIVATE_TARGETS (true when HOST is loopback).
 */
export function loadConfig(env: Env = process.env): ServerConfig {
  const testRps = positiveNumber(env, 'RATE_LIMIT_TEST', DEFAULT_HTTP_CONFIG.rateLimits.testRps);
  const logLevel = env.LOG_LEVEL?.trim() || DEFAULT_HTTP_CONFIG.logLevel;
  if (!LOG_LEVELS.has(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`);
  }
  return {
    ...DEFAULT_HTTP_CONFIG,
    host: env.HOST?.trim() || '127.0.0.1',
    port: port(env),
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    trustProxy: trustProxy(env),
    logLevel,
    rateLimits: {
      liveRps: positiveNumber(env, 'RATE_LIMIT_LIVE', DEFAULT_HTTP_CONFIG.rateLimits.liveRps),
      testRps,
      anonymousRps: positiveNumber(env, 'RATE_LIMIT_ANONYMOUS', testRps),
    },
    shutdownGraceMs: positiveNumber(env, 'SHUTDOWN_GRACE_MS', 10_000, true),
    allowPrivateWebhookTargets: allowPrivateWebhookTargets(env),
  };
}
