/**
 * A Node HTTP server with the settings `buildApp` gives Fastify's own: the same timeouts
 * (`timeouts.ts`) and the same answers to what the parser refuses (`client-errors.ts`). For a
 * host that serves apps through a server of its own (`npm run dev` swaps apps behind one
 * server, `tooling/dev/swap-host.ts`), so it cannot drift from production's settings.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpConfig } from '../config.js';
import type { Db } from '../db/types.js';
import { clientErrorHandler } from './client-errors.js';
import { serverTimeoutOptions } from './timeouts.js';

/** The settings the server reads. */
export type NodeServerSettings = Pick<
  HttpConfig,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'apiVersions'
> & {
  /** The service's database: parser refusals are answered in its account's pin. */
  db?: Db;
};

/**
 * Creates the server; `logger` names the app whose logger records refusals (the one serving
 * now; none before the first is built).
 */
export function createNodeServer(
  settings: NodeServerSettings,
  listener: RequestListener,
  logger: () => { log: { info(obj: object, message: string): void } } | undefined,
): Server {
  const { requestTimeout, keepAliveTimeout, http } = serverTimeoutOptions(settings);
  const server = createServer({ ...http, requestTimeout, keepAliveTimeout }, listener);
  const answer = clientErrorHandler(settings.apiVersions, settings.db);
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) =>
    answer.call(logger(), error, socket),
  );
  return server;
}
