/**
 * The service's settings, read from the environment once at start, before anything else
 * happens. Invalid values stop the process with one line naming the variable and what it
 * accepts (exit 2), never a stack trace.
 */
import { isIP } from 'node:net';
import type { components } from '../generated/types.js';
import { versions } from './versioning/index.js';
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
  /**
   * Longest wait for a request's headers, in ms (Node's `headersTimeout`). Default 10 s.
   * Refused with 408 `request_timeout` where the socket still takes a response.
   */
  headersTimeoutMs: number;
  /**
   * Longest wait for a whole request, headers and body, in ms (Node's `requestTimeout`).
   * Default 30 s, so a client that sends part of a body and then idles or dribbles is cut
   * off within about 31 s (timeouts are checked every second, see `server/http/timeouts.ts`).
   */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests, in ms. Default 72 s. */
  keepAliveTimeoutMs: number;
  /**
   * The URL clients reach the service at (`PUBLIC_URL`): advertised in the served spec and the
   * base of the FHIR face's absolute links. Unset: the spec is relative and FHIR links use the
   * listening address.
   */
  publicUrl: string | undefined;
}

/** Settings of the process (`server/main.ts`). */
export interface ServerConfig extends HttpConfig {
  host: string;
  port: number;
  /** `sqlite:PATH`, `sqlite::memory:` or `postgres://…`; `undefined` = the default SQLite file. */
  databaseUrl: string | undefined;
  /** How long shutdown waits for in-flight requests before closing connections, in ms. */
  shutdownGraceMs: number;
  /** The retention schedule (`server/retention/`). */
  retention: RetentionConfig;
}

/**
 * When expired rows are deleted (docs/design.md#retention). Idempotency records live their
 * 24 h and tokens until they expire, as the spec promises; these settings say how often the
 * purge runs and how long an untouched rate-limit bucket is kept.
 */
export interface RetentionConfig {
  /** Time between purge rounds in ms (`RETENTION_INTERVAL_MS`, default 5 min); 0 = never. */
  intervalMs: number;
  /**
   * A rate-limit bucket untouched this long is deleted (`RETENTION_BUCKET_IDLE_MS`, default
   * 1 h). Buckets refill in seconds, so an hour-old bucket is full and forgetting it changes
   * nothing a client can see.
   */
  bucketIdleMs: number;
}

/** Defaults of the retention schedule. */
export const DEFAULT_RETENTION_CONFIG: RetentionConfig = {
  intervalMs: 5 * 60_000,
  bucketIdleMs: 60 * 60_000,
};
/** The dated API version handlers speak: the newest of `spec/versions/` (`info.version`). */
export const CURRENT_API_VERSION = versions.latest as components['schemas']['ApiVersion'];

/** Defaults for everything `buildApp` takes. */
export const DEFAULT_HTTP_CONFIG: HttpConfig = {
  rateLimits: { liveRps: 100, testRps: 25, anonymousRps: 25 },
  trustProxy: false,
  bodyLimit: 1024 * 1024,
  logLevel: 'info',
  apiVersions: versions.supported,
  allowPrivateWebhookTargets: false,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers, so a balancer never reuses a
  // connection the server is closing (the race that answers a client with a reset).
  keepAliveTimeoutMs: 72_000,
  publicUrl: undefined,
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
    throw new ConfigError(
      `${name} must be a positive ${integer ? 'whole number' : 'number'}, got "${raw.trim()}"`,
    );
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
  const bad = raw.split(',').find((entry) => !isAddressOrRange(entry.trim()));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUSTED_PROXY must be true, false, a hop count or comma-separated IP addresses/CIDR ranges; "${bad.trim()}" is none of these`,
    );
  }
  return raw;
}

function isAddressOrRange(text: string): boolean {
  const [address = '', prefix, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** `sqlite:PATH`, `sqlite::memory:`, `postgres://…`; the value is never echoed (passwords). */
function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^sqlite:./.test(raw) || /^postgres(?:ql)?:\/\/./.test(raw)) return raw;
  throw new ConfigError(
    'DATABASE_URL must be sqlite:PATH, sqlite::memory: or postgres://USER@HOST/DATABASE',
  );
}

function publicUrl(env: Env): string | undefined {
  const raw = env.PUBLIC_URL?.trim();
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConfigError(
      'PUBLIC_URL must be an absolute http:// or https:// URL without query or fragment, e.g. https://api.example.com',
    );
  }
  return raw.replace(/\/+$/, '');
}

function host(env: Env): string {
  const raw = env.HOST?.trim() || '127.0.0.1';
  // Digits and dots only but not an IP (999.1.1.1): no host name looks like that (a top-level
  // domain is never numeric), and the resolver's answer would be a puzzling getaddrinfo error.
  if (
    isIP(raw) === 0 &&
    (!/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/i.test(raw) || /^[\d.]+$/.test(raw))
  ) {
    throw new ConfigError('HOST must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0');
  }
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

/** A whole number of milliseconds; 0 is accepted only where it means "off". */
function milliseconds(env: Env, name: string, fallback: number, zeroMeansOff = false): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || (value === 0 && !zeroMeansOff)) {
    throw new ConfigError(
      `${name} must be a ${zeroMeansOff ? 'whole number of milliseconds (0 turns it off)' : 'positive whole number of milliseconds'}, got "${raw}"`,
    );
  }
  return value;
}

/** HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS (docs/design.md#timeouts). */
function timeouts(
  env: Env,
): Pick<HttpConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'> {
  const headersTimeoutMs = milliseconds(
    env,
    'HEADERS_TIMEOUT_MS',
    DEFAULT_HTTP_CONFIG.headersTimeoutMs,
  );
  const requestTimeoutMs = milliseconds(
    env,
    'REQUEST_TIMEOUT_MS',
    DEFAULT_HTTP_CONFIG.requestTimeoutMs,
  );
  // Node refuses a headers timeout longer than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: milliseconds(
      env,
      'KEEP_ALIVE_TIMEOUT_MS',
      DEFAULT_HTTP_CONFIG.keepAliveTimeoutMs,
    ),
  };
}

/**
 * Reads RETENTION_INTERVAL_MS (default 300000; 0 = no purging in this process) and
 * RETENTION_BUCKET_IDLE_MS (default 3600000). The server and `npm run worker` both read it.
 */
export function loadRetentionConfig(env: Env = process.env): RetentionConfig {
  return {
    intervalMs: milliseconds(
      env,
      'RETENTION_INTERVAL_MS',
      DEFAULT_RETENTION_CONFIG.intervalMs,
      true,
    ),
    bucketIdleMs: milliseconds(
      env,
      'RETENTION_BUCKET_IDLE_MS',
      DEFAULT_RETENTION_CONFIG.bucketIdleMs,
    ),
  };
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * Reads the environment.
 *
 * HOST (127.0.0.1), PORT (4010), DATABASE_URL, PUBLIC_URL, TRUSTED_PROXY, RATE_LIMIT_LIVE
 * (100), RATE_LIMIT_TEST (25), RATE_LIMIT_ANONYMOUS (test rate), LOG_LEVEL (info),
 * SHUTDOWN_GRACE_MS (10000), WEBHOOK_ALLOW_PRIVATE_TARGETS (true when HOST is loopback),
 * HEADERS_TIMEOUT_MS (10000), REQUEST_TIMEOUT_MS (30000), KEEP_ALIVE_TIMEOUT_MS (72000),
 * RETENTION_INTERVAL_MS (300000) and RETENTION_BUCKET_IDLE_MS (3600000). The
 * background work's variables are read by `loadBackgroundConfig` (server/webhooks/background.ts).
 */
export function loadConfig(env: Env = process.env): ServerConfig {
  const testRps = positiveNumber(env, 'RATE_LIMIT_TEST', DEFAULT_HTTP_CONFIG.rateLimits.testRps);
  const logLevel = env.LOG_LEVEL?.trim() || DEFAULT_HTTP_CONFIG.logLevel;
  if (!LOG_LEVELS.has(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`);
  }
  return {
    ...DEFAULT_HTTP_CONFIG,
    host: host(env),
    port: port(env),
    databaseUrl: databaseUrl(env),
    publicUrl: publicUrl(env),
    trustProxy: trustProxy(env),
    logLevel,
    rateLimits: {
      liveRps: positiveNumber(env, 'RATE_LIMIT_LIVE', DEFAULT_HTTP_CONFIG.rateLimits.liveRps),
      testRps,
      anonymousRps: positiveNumber(env, 'RATE_LIMIT_ANONYMOUS', testRps),
    },
    shutdownGraceMs: positiveNumber(env, 'SHUTDOWN_GRACE_MS', 10_000, true),
    allowPrivateWebhookTargets: allowPrivateWebhookTargets(env),
    ...timeouts(env),
    retention: loadRetentionConfig(env),
  };
}
