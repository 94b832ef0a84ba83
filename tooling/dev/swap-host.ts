/**
 * The service side of `npm run dev`: a stable HTTP server in front of one Fastify app per
 * contract. A new contract is built beside the serving one (while the toolchain still lints
 * it), swapped in on `commit`, and the previous app is closed once its in-flight requests have
 * finished: requests already routed finish on the contract they started on, new ones see the
 * new contract, none is dropped.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { RouteDefinition } from '../../contract/route-types.js';
import { routeTableOf } from '../../generators/route-table.js';
import { handlerEntries } from '../../server/app.js';
import { notImplemented } from '../../server/handlers/not-implemented.js';
import { createNodeServer, type NodeServerSettings } from '../../server/http/node-server.js';
import type { HandlerTable } from '../../server/http/register-routes.js';
import type { VersionTable } from '../../server/http/version-step.js';
import type { AppBuilder, AppOverrides, ServiceHost } from '../../server/service-host.js';
import { deriveDocument, useVersionChanges, versions } from '../../server/versioning/index.js';
import { freshVersionChanges } from '../openapi/version-list.js';
import { LiveReload, liveReloadScript } from './live-reload.js';
import type { ContractPayload, FromService, ProblemPayload } from './messages.js';
import { devResponseCheck } from './response-check.js';
import { ServedDocs } from './served-docs.js';

interface Served {
  id: string | null;
  app: FastifyInstance;
  inflight: number;
  retired: boolean;
}

export class SwapHost implements ServiceHost {
  readonly live = new LiveReload();
  private readonly docs = new ServedDocs();
  private build: AppBuilder | undefined;
  private handlers: HandlerTable | undefined;
  private current: Served | undefined;
  private server: Server | undefined;
  private readonly candidates = new Map<string, Promise<FastifyInstance>>();
  private readonly retiring = new Set<Served>();
  private drained: (() => void) | undefined;

  constructor(
    /** The first state the toolchain sends (the contract to start with, if the spec is good). */
    private readonly initial: Promise<{
      contract: ContractPayload | null;
      problem: ProblemPayload | null;
    }>,
    private readonly send: (message: FromService) => void,
  ) {}

  async start(build: AppBuilder): Promise<FastifyInstance> {
    this.build = build;
    const { handlers } = await import('../../server/handlers/index.js');
    this.handlers = handlerEntries(handlers);
    const { contract, problem } = await this.initial;
    // No good contract yet (the spec was broken at start): serve the generated route table.
    const app = await build(
      contract
        ? await this.overrides(contract)
        : {
            docs: { load: this.docs.fallback(), liveReloadScript: liveReloadScript(null) },
            // The generated table is served; answers in older versions are not checked.
            responseCheck: devResponseCheck(await generatedTable()),
          },
    );
    await app.ready();
    this.current = { id: contract?.id ?? null, app, inflight: 0, retired: false };
    this.live.publish({ contract: contract?.id ?? null, problem });
    return app;
  }

  async listen(
    address: { host: string; port: number },
    settings: NodeServerSettings,
  ): Promise<number> {
    // The timeouts and parser refusals of the service's own server (`buildApp`).
    const server = createNodeServer(
      settings,
      (request, response) => this.dispatch(request, response),
      () => this.current?.app,
    );
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = server.address();
    const port = typeof bound === 'object' && bound ? bound.port : address.port;
    this.send({ type: 'listening', port });
    return port;
  }

  /** Builds `contract` beside the serving app; `commit` swaps it in. */
  candidate(contract: ContractPayload): void {
    if (this.build === undefined) return;
    const build = this.build;
    const built = this.overrides(contract).then(async (overrides) => {
      const app = await build(overrides);
      await app.ready();
      return app;
    });
    built.catch((error: unknown) => {
      this.send({ type: 'build-failed', id: contract.id, message: messageOf(error) });
    });
    this.candidates.set(contract.id, built);
  }

  async commit(id: string): Promise<void> {
    const built = this.candidates.get(id);
    if (built === undefined) return;
    this.candidates.delete(id);
    let app: FastifyInstance;
    try {
      app = await built;
    } catch {
      return; // reported by `candidate`
    }
    const previous = this.current;
    this.current = { id, app, inflight: 0, retired: false };
    this.live.publish({ contract: id, problem: null });
    this.send({ type: 'swapped', id });
    if (previous !== undefined) this.retire(previous);
  }

  discard(id: string): void {
    const built = this.candidates.get(id);
    this.candidates.delete(id);
    built?.then((app) => app.close()).catch(() => {});
  }

  async close(): Promise<void> {
    this.live.close();
    const server = this.server;
    const closed = server
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    if (this.current !== undefined) this.retire(this.current);
    await this.allDrained();
    server?.closeAllConnections();
    await closed;
    for (const id of [...this.candidates.keys()]) this.discard(id);
  }

  private dispatch(request: IncomingMessage, response: ServerResponse): void {
    if (this.live.handles(request, response)) return;
    const served = this.current;
    if (served === undefined || served.retired) {
      response.writeHead(503, { connection: 'close' }).end();
      return;
    }
    served.inflight += 1;
    response.once('close', () => {
      served.inflight -= 1;
      if (served.retired && served.inflight === 0) void this.closeRetired(served);
    });
    served.app.routing(request, response);
  }

  private retire(served: Served): void {
    served.retired = true;
    this.retiring.add(served);
    if (served.inflight === 0) void this.closeRetired(served);
  }

  private async closeRetired(served: Served): Promise<void> {
    if (!this.retiring.delete(served)) return;
    await served.app.close().catch(() => {});
    if (this.retiring.size === 0) this.drained?.();
  }

  private allDrained(): Promise<void> {
    if (this.retiring.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }

  /**
   * The app options for `contract`, every version with its own contract: the version modules
   * as they are on disk now become the service's registry (renderers, docs picker, pins), and
   * a request pinned to an older version is judged by the table of the document those modules
   * derive for it from this contract's document, built on that version's first request.
   */
  private async overrides(contract: ContractPayload): Promise<AppOverrides> {
    useVersionChanges(await freshVersionChanges());
    const registry = versions;
    const document = contract.document as Record<string, unknown>;
    const older = new Map<string, Promise<VersionTable>>();
    const versionTables = (version: string): Promise<VersionTable> => {
      let table = older.get(version);
      if (table === undefined) {
        table = Promise.resolve().then(() =>
          routeTableOf(deriveDocument(document, registry, version)),
        );
        older.set(version, table);
      }
      return table;
    };
    return {
      // The header check's list, which the process's settings took from the first registry.
      config: { apiVersions: registry.supported },
      routes: contract.routes,
      componentSchemas: contract.componentSchemas,
      versionTables,
      // Every answer checked against its version's document; a mismatch is one warn line.
      responseCheck: devResponseCheck(contract, versionTables),
      // A save's app is built while the lint runs, and the swap waits for the slower of the
      // two: each route compiles its validators on its first request instead.
      compileValidators: 'first-use',
      handlers: withNotImplemented(this.handlers ?? {}, contract.routes),
      docs: {
        load: this.docs.loaderFor(contract.document),
        liveReloadScript: liveReloadScript(contract.id),
      },
    };
  }
}

/**
 * The handler table for `routes`: an operation added to the spec since the service started
 * has no handler module loaded yet (its stub is written to `server/handlers/` by the loop), so
 * it answers what the stub answers, 501 in the error envelope, until it is implemented.
 */
export function withNotImplemented(
  handlers: HandlerTable,
  routes: readonly RouteDefinition[],
): HandlerTable {
  const table: Record<string, HandlerTable[string]> = { ...handlers };
  for (const route of routes) {
    table[route.operationId] ??= async () => notImplemented(route.operationId);
  }
  return table;
}

/** The route table `npm run generate` wrote, which the service serves without a contract. */
async function generatedTable(): Promise<VersionTable> {
  const { routes, componentSchemas } = await import('../../generated/routes.js');
  return { routes, componentSchemas };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
