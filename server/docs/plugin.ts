import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, docUrl, type ErrorCode, errorSpec, isApiError } from '../errors.js';
import { sunsetDates } from '../http/deprecation.js';
import { versions } from '../versioning/index.js';
import { type Asset, assetManifest } from './assets.js';
import { inlineScriptHashes } from './inline-scripts.js';
import { docsPage, explorerPage } from './pages.js';
import type { PreparedDocs } from './prepared.js';
import { contentSecurityPolicy, securityHeaders } from './security-headers.js';
import { type SpecDocuments, specDocuments, versionedDocuments } from './spec-documents.js';

/** Options of {@link docsPlugin}. */
export interface DocsPluginOptions {
  /**
   * Loads what the routes serve (`readPreparedDocs(builtSiteDir())` in the service; tests
   * prepare it in memory). Called once, on first use.
   */
  load: () => Promise<PreparedDocs>;
  /** The URL the served spec advertises (`PUBLIC_URL`); without it, the relative `/`. */
  publicUrl?: string | undefined;
  /**
   * Where `npm run docs` writes the server-rendered reference (`build/docs`). When its
   * `index.html` exists it is also served at `/docs/static`; nothing requires it to exist.
   */
  staticDir?: string | undefined;
  /** URL of a script the pages also load: `npm run dev`'s live reload. */
  liveReloadScript?: string | undefined;
}

const ASSET_PREFIX = '/docs/assets';
const SPEC_URL = '/openapi.json';
const EXPLORER_SPEC_URL = '/docs/explorer/openapi.json';
const REFERENCE_SPEC_URL = '/docs/reference.json';

/** Route config marking routes that need no API key; the anonymous rate limit applies. */
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

/** Sends prepared bytes with their ETag (304 when the client has them) and gzip on request. */
function sendAsset(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: Asset,
  cacheControl: string,
): FastifyReply {
  reply
    .type(asset.type)
    .header('etag', asset.etag)
    .header('vary', 'accept-encoding')
    .header('cache-control', cacheControl);
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
    return reply.header('content-encoding', 'gzip').send(asset.gzipped());
  }
  return reply.send(asset.body);
}

/** The `version` query parameter: a supported date, else the latest; anything else is a 400. */
function askedVersion(request: FastifyRequest): string {
  const asked = (request.query as { version?: unknown } | undefined)?.version;
  if (asked === undefined || asked === '') return versions.latest;
  if (typeof asked === 'string' && versions.supported.includes(asked)) return asked;
  throw new ApiError('parameter_invalid', {
    param: 'version',
    message: `Unknown version; supported versions: ${versions.supported.join(', ')}.`,
  });
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
 * Serves the API reference (`/docs`, also the target of `GET /`), the interactive explorer
 * (`/docs/explorer`) and the bundled spec (`/openapi.yaml`, `/openapi.json`, advertising the
 * configured public URL or a relative server). Every script and style comes from the service
 * itself (whitelisted files under `/docs/assets/<version>/`), and a strict
 * Content-Security-Policy forbids other origins.
 *
 * Nothing is read at registration: the prepared site is loaded on first use, then every answer
 * is bytes made once. Not API operations: no `/v1` prefix and no API key, but the per-client
 * anonymous rate limit (the app's authentication hook) applies.
 *
 * @example await app.register(docsPlugin, { load: () => readPreparedDocs(builtSiteDir()) });
 */
export const docsPlugin: FastifyPluginAsync<DocsPluginOptions> = async (app, options) => {
  const prepared = once(async () => {
    const docs = await options.load();
    const assets = assetManifest(docs.assets);
    const info = (docs.spec.info ?? {}) as { title?: unknown };
    const ctx = {
      assetBase: `${ASSET_PREFIX}/${assets.version}`,
      specUrl: SPEC_URL,
      title: typeof info.title === 'string' ? info.title : 'API',
      ...(options.liveReloadScript === undefined ? {} : { extraScript: options.liveReloadScript }),
    };
    const latest = specDocuments(docs, options.publicUrl);
    const sunsets = sunsetDates(versions);
    // Older versions' documents are derived on first request, then kept (a few hundred kB).
    const older = new Map<string, SpecDocuments>();
    const pages = new Map<string, string>();
    return {
      assets,
      spec: latest,
      specOf(version: string): SpecDocuments {
        if (version === versions.latest) return latest;
        let documents = older.get(version);
        if (documents === undefined) {
          documents = versionedDocuments(docs, version, options.publicUrl);
          older.set(version, documents);
        }
        return documents;
      },
      docsPageOf(version: string): string {
        let page = pages.get(version);
        if (page === undefined) {
          const specUrl =
            version === versions.latest
              ? REFERENCE_SPEC_URL
              : `${REFERENCE_SPEC_URL}?version=${version}`;
          page = docsPage({
            ...ctx,
            specUrl,
            versions: { supported: versions.supported, shown: version, sunsets },
          });
          pages.set(version, page);
        }
        return page;
      },
      pages: { explorer: explorerPage({ ...ctx, specUrl: EXPLORER_SPEC_URL }) },
    };
  });
  const staticBuild = once(async () => {
    if (options.staticDir === undefined) return undefined;
    const html = await readFile(join(options.staticDir, 'index.html'), 'utf8').catch(() => null);
    if (html === null) return undefined;
    return { html, csp: contentSecurityPolicy(inlineScriptHashes(html)) };
  });

  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    // API errors (the anonymous rate limit's 429) are the app's to answer, in its envelope.
    if (isApiError(error)) throw error;
    // A broken spec or a missing vendored file is an operator problem: log it, answer with
    // the envelope and no detail.
    request.log.error({ err: error }, 'docs plugin failed');
    return sendError(request, reply, 'internal');
  });

  const html = (reply: FastifyReply, body: string) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(body);

  app.get('/docs', PUBLIC_ROUTE, async (request, reply) =>
    html(reply, (await prepared()).docsPageOf(askedVersion(request))),
  );
  app.get('/docs/', PUBLIC_ROUTE, async (_request, reply) => reply.redirect('/docs', 301));
  // Error envelopes link to `<base>/docs/errors#<code>` (server/errors.ts). The fragment never
  // reaches the server; a Location without one keeps it (RFC 9110 §10.2.2), so the browser
  // opens `/docs#<code>` and docs-init.js scrolls to that code's entry (reference-spec.ts).
  app.get('/docs/errors', PUBLIC_ROUTE, async (_request, reply) => reply.redirect('/docs', 302));
  app.get('/docs/explorer', PUBLIC_ROUTE, async (_request, reply) =>
    html(reply, (await prepared()).pages.explorer),
  );
  app.get('/docs/static', PUBLIC_ROUTE, async (request, reply) => {
    const built = await staticBuild();
    if (built === undefined) return sendError(request, reply, 'route_missing');
    return html(reply.header('content-security-policy', built.csp), built.html);
  });

  app.get('/', PUBLIC_ROUTE, async (_request, reply) => reply.redirect('/docs', 302));

  app.get<{ Params: { version: string; name: string } }>(
    `${ASSET_PREFIX}/:version/:name`,
    PUBLIC_ROUTE,
    async (request, reply) => {
      const { assets } = await prepared();
      const asset = assets.assets.get(request.params.name);
      if (asset === undefined || request.params.version !== assets.version) {
        return sendError(request, reply, 'route_missing');
      }
      // The URL changes with the content, so the file never needs revalidating.
      return sendAsset(request, reply, asset, 'public, max-age=31536000, immutable');
    },
  );

  // The spec changes only with a deployment: clients keep it but ask again (a cheap 304).
  // `?version=YYYY-MM-DD`: that version's document, derived from the latest (spec/versions/).
  app.get(SPEC_URL, PUBLIC_ROUTE, async (request, reply) =>
    sendAsset(request, reply, (await prepared()).specOf(askedVersion(request)).json, 'no-cache'),
  );
  app.get(REFERENCE_SPEC_URL, PUBLIC_ROUTE, async (request, reply) =>
    sendAsset(
      request,
      reply,
      (await prepared()).specOf(askedVersion(request)).reference,
      'no-cache',
    ),
  );
  app.get(EXPLORER_SPEC_URL, PUBLIC_ROUTE, async (request, reply) =>
    sendAsset(request, reply, (await prepared()).spec.explorer, 'no-cache'),
  );
  app.get('/openapi.yaml', PUBLIC_ROUTE, async (request, reply) =>
    sendAsset(request, reply, (await prepared()).specOf(askedVersion(request)).yaml, 'no-cache'),
  );
};
