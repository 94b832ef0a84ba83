/**
 * The Node HTTP server's timeouts for a config (docs/design.md#timeouts). Node checks the
 * headers and request timeouts on a timer (`connectionsCheckingInterval`, 30 s by default),
 * so a request could outlive its timeout by up to 30 s; checking every second keeps the
 * bound close to the setting (walking the open connections once a second costs microseconds
 * at the connection counts one process serves).
 */
import type { HttpConfig } from '../config.js';

/** Longest gap between two checks of the open connections' deadlines, in ms. */
const CHECK_EVERY_MS = 1000;

type TimeoutSettings = Pick<
  HttpConfig,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'
>;

/** The part of Fastify's options that sets the server's timeouts. */
export function serverTimeoutOptions(config: TimeoutSettings): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: { headersTimeout: number; connectionsCheckingInterval: number };
} {
  // `loadConfig` refuses a headers timeout above the request's; options built in code are
  // clamped instead, since Node refuses that pair when it creates the server.
  const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  return {
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout,
      connectionsCheckingInterval: Math.max(1, Math.min(CHECK_EVERY_MS, headersTimeout)),
    },
  };
}
