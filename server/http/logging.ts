/**
 * Logging (docs/design.md#phi): pino through Fastify. Fastify's own request lines are switched off
 * because they print the raw URL (query strings may carry filters); this module writes one line
 * per request with the method, the route template, the status, the time and the request id —
 * never bodies, query strings or headers. Redaction is a second guard for anything that slips.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** How `buildApp` logs: off, on at a level, or to a given stream (tests capture lines). */
export type LogSetting = boolean | { level?: string; stream?: LogStream };

/** Where log lines go: anything with `write(line)` (pino's destination contract). */
export interface LogStream {
  write(line: string): void;
}

/** Paths pino replaces with `[redacted]` wherever a caller logs such an object. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'req.body',
  'req.query',
  'req.url',
  'body',
  'query',
  'headers.authorization',
  'authorization',
  'secret',
  'err.detail',
  'err.where',
  'err.parameters',
];

/**
 * An error message with what could be data taken out: quoted text and runs of digits. Driver
 * and handler messages sometimes quote the values involved (`near "… WHERE family = '…'"`),
 * which may be PHI; the shape of the message is what helps debugging, and it stays.
 */
export function scrubMessage(message: string): string {
  return message
    .replace(/"(?:[^"\\]|\\.)*"/g, '"[redacted]"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'[redacted]'")
    .replace(/`[^`]*`/g, '`[redacted]`')
    .replace(/\d{3,}/g, '#');
}

/**
 * Errors as logged: name, code, scrubbed message and stack frames only. Driver errors carry
 * more (PostgreSQL's `detail` holds the offending row's values, which may be PHI), so
 * everything else is dropped.
 */
export function serializeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  const message = scrubMessage(error.message);
  const head = `${error.name}: ${error.message}`;
  let stack: string | undefined;
  if (typeof error.stack === 'string') {
    // The stack's first line repeats the message: keep the scrubbed one, then the frames only.
    stack = error.stack.startsWith(head)
      ? `${error.name}: ${message}${error.stack.slice(head.length)}`
      : error.stack
          .split('\n')
          .filter((line) => line.trimStart().startsWith('at '))
          .join('\n');
  }
  const out: Record<string, unknown> = { type: error.name, message };
  if (stack !== undefined) out.stack = stack;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (error.cause !== undefined) out.cause = serializeError(error.cause);
  return out;
}

/** Fastify's `logger` option for a setting. */
export function loggerOptions(setting: LogSetting, level: string): false | Record<string, unknown> {
  if (setting === false) return false;
  const chosen = setting === true ? {} : setting;
  return {
    level: chosen.level ?? level,
    ...(chosen.stream ? { stream: chosen.stream } : {}),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      err: serializeError,
      error: serializeError,
      // Only the method and route template, even when someone logs `{ req }`.
      req: (req: { method?: string; routeOptions?: { url?: string } }) => ({
        method: req.method,
        route: req.routeOptions?.url ?? null,
      }),
      res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
    },
  };
}

/** The one line logged per request (`onResponse`). */
export function logRequestCompleted(request: FastifyRequest, reply: FastifyReply): void {
  // Fastify builds a new object on every read of `routeOptions`: read it once.
  const options = request.routeOptions;
  request.log.info(
    {
      method: request.method,
      // The template (`/v1/patients/:id`), never the URL: ids and query strings stay out.
      route: options.url ?? null,
      operationId: (options.config as { operationId?: string } | undefined)?.operationId ?? null,
      status: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
      keyId: request.apiKey?.id ?? null,
    },
    'request completed',
  );
}
