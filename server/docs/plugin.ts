import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { docUrl, type ErrorCode, errorSpec } from '../errors.js';
import { type AssetManifest, loadAssets } from './assets.js';
import { inlineScriptHashes } from './inline-scripts.js';
import { docsPage, explorerPage } from './pages.js';
import { contentSecurityPolicy, securityHeaders } from './security-headers.js';
import {
  cachedSpec,
  type OpenApiDocument,
  toYaml,
  withoutRemoteAssets,
  withServer,
} from './spec-bundle.js';

/** Options of {@link docsPlugin}. */
export interface DocsPluginOptions {
  /** The root OpenAPI document, e.g. `spec/openapi.yaml`. */
  specPath: string;
  /**
   * Where `npm run docs` writes the server-rendered reference (`build/docs`). When its
   * `index.html` exists it is also served at `/docs/static`; nothing requires it to exist.
   */
  buildDir?: string;
  /**
   * The document already bundled (`npm run dev` has it in memory for every save); served
   * instead of bundling `specPath`.
   */
  document?: OpenApiDocument;
  /** URL of a script the pages also load: `npm run dev`'s live reload. */
  liveReloadScript?: string;
}

const ASSET_PREFIX = '/docs/assets';
const SPEC_URL = '/openapi.json';
// Host header values that may name this service in `servers`: a DNS name or IP, optional port.
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const MAX_CACHED_ORIGINS = 16;

/** Route config marking routes that need no API key (see the report on wiring). */
const PUBLIC_ROUTE = { config: { public: true } } as const;

function sendError(request: FastifyRequest, reply: FastifyReply, code: ErrorCode): FastifyReply {
  const spec = errorSpec(code);
  return reply.code(spec.status).send({
    error: {
      type: spec.type,
      code,
      message: spec.message,
      param: null,
      doc_url: docUrl(code),
      request_id: String(request.id),
    },
  });
}

/** `http://127.0.0.1:4010` for the request, or undefined when the Host header is unusable. */
function requestOrigin(request: FastifyRequest): string | undefined {
  const host = request.host;
  return HOST.test(host) ? `${request.protocol}://${host}` : undefined;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/**
 * Serves the API reference (`/docs`), the interactive explorer (`/docs/explorer`) and the
 * bundled spec (`/openapi.yaml`, `/openapi.json`, with `servers` pointing at this service).
 * Every script and style comes from the service itself (whitelisted files under
 * `/docs/assets/<version>/`), and a strict Content-Security-Policy forbids other origins.
 *
 * Nothing is built at registration: the spec is bundled and the assets read on first use,
 * then answered from memory. Not API operations: no `/v1` prefix and no API key.
 *
 * @example await app.register(docsPlugin, { specPath: 'spec/openapi.yaml' });
 */
export const docsPlugin: FastifyPluginAsync<DocsPluginOptions> = async (app, options) => {
  const onDropped = (dropped: string[]) =>
    app.log.warn({ dropped }, 'docs: left out parts of the spec that load from other origins');
  const given = options.document;
  const spec =
    given === undefined
      ? cachedSpec(options.specPath, onDropped)
      : once(async () => {
          const { doc, dropped } = withoutRemoteAssets(given);
          if (dropped.length > 0) onDropped(dropped);
          return doc;
        });
  const manifest = once(loadAssets);
  const jsonByOrigin = new Map<string, string>();

  const pageContext = async () => {
    const [doc, assets] = await Promise.all([spec(), manifest()]);
    const info = (doc.info ?? {}) as { title?: unknown };
    return {
      assetBase: `${ASSET_PREFIX}/${assets.version}`,
      specUrl: SPEC_URL,
      title: typeof info.title === 'string' ? info.title : 'API',
      ...(options.liveReloadScript === undefined ? {} : { extraScript: options.liveReloadScript }),
    };
  };
  const pages = once(async () => {
    const ctx = await pageContext();
    return { docs: docsPage(ctx), explorer: explorerPage(ctx) };
  });
  const staticBuild = once(async () => {
    if (options.buildDir === undefined) return undefined;
    const html = await readFile(join(options.buildDir, 'index.html'), 'utf8').catch(() => null);
    if (html === null) return undefined;
    return { html, csp: contentSecurityPolicy(inlineScriptHashes(html)) };
  });

  const specFor = async (request: FastifyRequest): Promise<OpenApiDocument> => {
    const doc = await spec();
    const origin = requestOrigin(request);
    return origin === undefined ? doc : withServer(doc, origin);
  };

  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    // A broken spec or a missing vendored file is an operator problem: log it, answer with
    // the envelope and no detail.
    request.log.error({ err: error }, 'docs plugin failed');
    return sendError(request, reply, 'internal');
  });

  const html = (reply: FastifyReply, body: string) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(body);

  app.get('/docs', PUBLIC_ROUTE, async (_request, reply) => html(reply, (await pages()).docs));
  app.get('/docs/', PUBLIC_ROUTE, async (_request, reply) => reply.redirect('/docs', 301));
  // Error envelopes link to `<base>/docs/errors#<code>` (server/errors.ts): land on the
  // reference's Errors section.
  app.get('/docs/errors', PUBLIC_ROUTE, async (_request, reply) =>
    reply.redirect('/docs#/section/errors', 302),
  );
  app.get('/docs/explorer', PUBLIC_ROUTE, async (_request, reply) =>
    html(reply, (await pages()).explorer),
  );
  app.get('/docs/static', PUBLIC_ROUTE, async (request, reply) => {
    const built = await staticBuild();
    if (built === undefined) return sendError(request, reply, 'route_missing');
    return html(reply.header('content-security-policy', built.csp), built.html);
  });

  app.get<{ Params: { version: string; name: string } }>(
    `${ASSET_PREFIX}/:version/:name`,
    PUBLIC_ROUTE,
    async (request, reply) => {
      const assets: AssetManifest = await manifest();
      const asset = assets.assets.get(request.params.name);
      if (asset === undefined || request.params.version !== assets.version) {
        return sendError(request, reply, 'route_missing');
      }
      reply
        .type(asset.type)
        .header('etag', asset.etag)
        .header('vary', 'accept-encoding')
        // The URL changes with the content, so the file never needs revalidating.
        .header('cache-control', 'public, max-age=31536000, immutable');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
        return reply.header('content-encoding', 'gzip').send(asset.gzipped());
      }
      return reply.send(asset.body);
    },
  );

  app.get(SPEC_URL, PUBLIC_ROUTE, async (request, reply) => {
    const origin = requestOrigin(request) ?? '';
    let body = jsonByOrigin.get(origin);
    if (body === undefined) {
      body = JSON.stringify(await specFor(request));
      // A few origins at most in practice (localhost, 127.0.0.1, the public name).
      if (jsonByOrigin.size >= MAX_CACHED_ORIGINS) jsonByOrigin.clear();
      jsonByOrigin.set(origin, body);
    }
    return reply
      .type('application/json; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(body);
  });

  app.get('/openapi.yaml', PUBLIC_ROUTE, async (request, reply) =>
    reply
      .type('application/yaml; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(toYaml(await specFor(request))),
  );
};
