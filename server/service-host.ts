/**
 * How `server/main.ts` serves the app it builds. By default it listens itself; a host installed
 * before `main.ts` is imported (`npm run dev`, see `tooling/dev/`) takes over instead: it builds
 * the app with its own contract (route table, docs), listens, and swaps in a new app when the
 * spec changes. Production never installs one.
 */
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from './app.js';
import type { DocsPluginOptions } from './docs/plugin.js';
import type { NodeServerSettings } from './http/node-server.js';

/** Options replacing those `main.ts` uses; `docs` is merged field by field. */
export type AppOverrides = Omit<Partial<AppOptions>, 'docs'> & {
  docs?: Partial<DocsPluginOptions>;
};

/** Builds an app from the options `main.ts` uses, with some of them replaced. */
export type AppBuilder = (overrides?: AppOverrides) => Promise<FastifyInstance>;

export interface ServiceHost {
  /** Builds the first app (the host decides the contract) and keeps `build` for later ones. */
  start(build: AppBuilder): Promise<FastifyInstance>;
  /**
   * Accepts connections on `address` and hands each request to the current app; answers the
   * bound port (for the first-run lines `main.ts` prints). Its server applies `settings` as
   * `buildApp` does (`http/node-server.ts`).
   */
  listen(address: { host: string; port: number }, settings: NodeServerSettings): Promise<number>;
  /** Stops accepting, lets in-flight requests finish, closes every app. */
  close(): Promise<void>;
}

let installed: ServiceHost | undefined;

/** Installs `host` for the `main.ts` imported after this call. */
export function installServiceHost(host: ServiceHost): void {
  installed = host;
}

/** The installed host, if any. */
export function serviceHost(): ServiceHost | undefined {
  return installed;
}
