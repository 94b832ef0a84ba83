/**
 * The docs plugin without a browser (`app.inject`): pages, whitelisted assets, the served spec,
 * security headers and errors; plus the pieces `npm run docs` is built from. The browser test
 * beside this file covers rendering.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { externalLoads } from '../../server/docs/external-references.js';
import { inlineScriptHashes } from '../../server/docs/inline-scripts.js';
import { docsPlugin } from '../../server/docs/plugin.js';
import { ASSET_NAMES, prepareDocs } from '../../tooling/docs/prepare.js';
import { hardenStaticPage } from '../../tooling/docs/static-page.js';

const FIXTURE = resolve('test/browser/fixtures/mini-spec.yaml');
const HOST = { host: '127.0.0.1:4010' };

async function docsApp(
  specPath = FIXTURE,
  options: { staticDir?: string; publicUrl?: string } = {},
): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(docsPlugin, { load: () => prepareDocs(specPath), ...options });
  return app;
}

function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe('docs plugin', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await docsApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(['/docs', '/docs/explorer'])('%s is HTML loading only its own assets', async (url) => {
    const res = await app.inject({ url, headers: HOST });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(externalLoads(res.body)).toEqual([]);
    expect(inlineScriptHashes(res.body)).toEqual([]);
    expect(res.body).toContain('<title>Fixture API');
    expect(assetUrls(res.body).length).toBeGreaterThan(0);
  });

  it('sends a strict CSP that names no other origin', async () => {
    const res = await app.inject({ url: '/docs', headers: HOST });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toMatch(/https?:|\*|'unsafe-eval'/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the explorer never loads web fonts and starts with empty request fields', async () => {
    const res = await app.inject({ url: '/docs/explorer', headers: HOST });
    expect(res.body).toContain('load-fonts="false"');
    expect(res.body).toContain('fill-request-fields-with-example="false"');
    expect(res.body).toContain('spec-url="/docs/explorer/openapi.json"');
  });

  it('gives the explorer the spec shaped for RapiDoc (explorer-spec.ts), same servers', async () => {
    const served = (await app.inject({ url: '/openapi.json' })).json();
    const explorer = (await app.inject({ url: '/docs/explorer/openapi.json' })).json();
    expect(explorer.servers).toEqual(served.servers);
    // A deepObject query parameter becomes one plain parameter per property...
    expect(explorer.paths['/v1/patients'].get.parameters).toEqual([
      {
        name: 'created[gt]',
        in: 'query',
        required: false,
        description: 'After this time.',
        schema: { type: 'integer', description: 'After this time.' },
      },
      { name: 'created[lt]', in: 'query', required: false, schema: { type: 'integer' } },
    ]);
    // ...and a media type's single `example` becomes a named one.
    const example = { error: { code: 'resource_missing', param: null } };
    expect(
      explorer.paths['/v1/patients/{id}'].get.responses['404'].content['application/json'],
    ).toEqual({ schema: { type: 'object' }, examples: { example: { value: example } } });
    // /openapi.json keeps the document as written; the rest is the same document.
    const written = served.paths['/v1/patients'].get.parameters;
    expect(written.map((p: { style: string }) => p.style)).toEqual(['deepObject']);
    expect(
      served.paths['/v1/patients/{id}'].get.responses['404'].content['application/json'].example,
    ).toEqual(example);
    expect(explorer.components).toEqual(served.components);
    expect(explorer.info).toEqual(served.info);
  });

  it('serves every page asset with its type, an immutable cache header and an ETag', async () => {
    const pages = await Promise.all(
      ['/docs', '/docs/explorer'].map((url) => app.inject({ url, headers: HOST })),
    );
    const urls = new Set(pages.flatMap((page) => assetUrls(page.body)));
    for (const url of urls) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/(javascript|css); charset=utf-8$/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const again = await app.inject({ url, headers: { 'if-none-match': res.headers.etag } });
      expect(again.statusCode).toBe(304);
    }
    expect(urls.size).toBeGreaterThanOrEqual(3);
  });

  it('gzips on request, and the Redoc bundle no longer points at its CDN logo', async () => {
    const page = await app.inject({ url: '/docs', headers: HOST });
    const base = assetUrls(page.body)[0]!.replace(/\/[^/]+$/, '');
    const res = await app.inject({
      url: `${base}/redoc.standalone.js`,
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    const code = gunzipSync(res.rawPayload).toString('utf8');
    expect(code).toContain('Redoc');
    expect(code).not.toContain('cdn.redoc.ly');
  });

  it.each([
    ['an unlisted file', (base: string) => `${base}/package.json`],
    ['a path outside the folder', (base: string) => `${base}/..%2F..%2Fpackage.json`],
    ['a stale version', () => '/docs/assets/000000000000/docs-init.js'],
  ])('answers %s with the 404 error envelope', async (_name, urlFor) => {
    const page = await app.inject({ url: '/docs', headers: HOST });
    const base = assetUrls(page.body)[0]!.replace(/\/[^/]+$/, '');
    const res = await app.inject({ url: urlFor(base) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('route_missing');
  });

  it('lists exactly the whitelisted assets', () => {
    expect([...ASSET_NAMES].sort()).toEqual([
      'docs-init.js',
      'pages.css',
      'rapidoc-min.js',
      'redoc.standalone.js',
    ]);
  });

  it('serves the bundled spec with a relative server, whatever the Host header says', async () => {
    const res = await app.inject({ url: '/openapi.json', headers: { host: 'evil.example' } });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const doc = res.json();
    expect(doc.servers).toEqual([
      { url: '/', description: 'This service (relative to where this document was loaded)' },
    ]);
    expect(res.body).not.toContain('evil.example');
    // split files and markdown guides are resolved, the remote logo is left out
    const schema =
      doc.paths['/v1/patients'].get.responses['200'].content['application/json'].schema;
    expect(schema).toEqual({ $ref: '#/components/schemas/list' });
    expect(doc.components.schemas.list.type).toBe('object');
    expect(doc.tags[0].description).toContain('# Fixture guide');
    expect(doc.info['x-logo']).toBeUndefined();

    const yaml = await app.inject({ url: '/openapi.yaml', headers: HOST });
    expect(yaml.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(parseYaml(yaml.body)).toEqual(doc);
  });

  it('serves the spec as prepared bytes with an ETag, revalidated with a 304', async () => {
    const first = await app.inject({ url: '/openapi.yaml' });
    const again = await app.inject({ url: '/openapi.yaml' });
    expect(first.headers.etag).toMatch(/^"[\w-]{22}"$/);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(first.headers['cache-control']).toBe('no-cache');
    const cached = await app.inject({
      url: '/openapi.yaml',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
  });

  it('advertises the configured public URL in both formats', async () => {
    const configured = await docsApp(FIXTURE, { publicUrl: 'https://api.example.com' });
    const json = await configured.inject({
      url: '/openapi.json',
      headers: { host: 'evil.example' },
    });
    const yaml = await configured.inject({ url: '/openapi.yaml' });
    await configured.close();
    expect(json.json().servers).toEqual([
      { url: 'https://api.example.com', description: 'This service' },
    ]);
    expect(parseYaml(yaml.body).servers).toEqual(json.json().servers);
  });

  it('sends GET / to the reference', async () => {
    const res = await app.inject({ url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/docs');
  });

  it('redirects /docs/ to /docs', async () => {
    const res = await app.inject({ url: '/docs/' });
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/docs');
  });

  it('sends error doc links (/docs/errors#code) to the reference, keeping the fragment', async () => {
    const res = await app.inject({ url: '/docs/errors' });
    expect(res.statusCode).toBe(302);
    // No fragment of its own: the browser keeps the link's #code (docs-init.js scrolls to it).
    expect(res.headers.location).toBe('/docs');
  });

  it('answers a broken spec with the 500 envelope and no detail', async () => {
    const broken = await docsApp(resolve('test/browser/fixtures/no-such-spec.yaml'));
    const res = await broken.inject({ url: '/openapi.json', headers: HOST });
    await broken.close();
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toMatchObject({ type: 'api_error', code: 'internal' });
    expect(res.body).not.toContain('no-such-spec');
  });

  it('/docs/static is a 404 until a build exists', async () => {
    const res = await app.inject({ url: '/docs/static' });
    expect(res.statusCode).toBe(404);
  });
});

describe('externalLoads', () => {
  it.each([
    ['<script src="https://cdn.example/x.js"></script>', ['https://cdn.example/x.js']],
    ['<link rel="stylesheet" href="//fonts.example/css">', ['//fonts.example/css']],
    [
      '<style>@font-face{src:url(https://f.example/a.woff2)}</style>',
      ['https://f.example/a.woff2'],
    ],
    [
      '<script type="module">import {x} from "https://esm.example/m.js"</script>',
      ['https://esm.example/m.js'],
    ],
    ['<img src="https://cdn.example/logo.svg">', ['https://cdn.example/logo.svg']],
    ['<script src="/docs/assets/v/a.js"></script><a href="https://example.org">x</a>', []],
    [
      '<link rel="icon" href="data:,"><style>.a{background:url(data:image/png;base64,AA)}</style>',
      [],
    ],
  ])('%s', (html, want) => {
    expect(externalLoads(html)).toEqual(want);
  });
});

describe('static reference build', () => {
  it('pins inline scripts by hash in a meta CSP', () => {
    const page = hardenStaticPage('<html><head></head><body><script>run()</script></body></html>');
    const [hash] = inlineScriptHashes(page);
    expect(hash).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(page).toContain(`script-src 'self' ${hash}`);
    expect(page).toContain('http-equiv="Content-Security-Policy"');
  });

  it('npm run docs writes an offline page and the bundled spec; the plugin serves it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'pc-docs-build-'));
    try {
      await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'scripts/docs.ts', '--spec', FIXTURE, '--out', out],
        { maxBuffer: 16 * 1024 * 1024 },
      );
      const html = readFileSync(join(out, 'index.html'), 'utf8');
      expect(externalLoads(html)).toEqual([]);
      expect(html).toContain('List patients');
      expect(html).toContain('Content-Security-Policy');
      expect(JSON.parse(readFileSync(join(out, 'openapi.json'), 'utf8')).info.title).toBe(
        'Fixture API',
      );

      const served = await docsApp(FIXTURE, { staticDir: out });
      const res = await served.inject({ url: '/docs/static' });
      await served.close();
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['content-security-policy'])).toMatch(/script-src 'self' 'sha256-/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
