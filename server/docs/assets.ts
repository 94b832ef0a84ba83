import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const require = createRequire(import.meta.url);
// Beside this module, or, when it runs bundled into build/server/ (`npm start`), in the source tree.
const moduleDir = dirname(fileURLToPath(import.meta.url));
const here = existsSync(join(moduleDir, 'public'))
  ? moduleDir
  : join(moduleDir, '..', '..', 'server', 'docs');

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** One file the docs pages may load, and the content type it is served with. */
interface AssetSource {
  readonly path: () => string;
  readonly type: string;
  /** Edits a vendored file on load; see the one use for why. */
  readonly transform?: (text: string) => string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The whitelist: the only files served under `/docs/assets/`. A name not listed here is a 404,
 * so no request can walk into the rest of `node_modules` or the source tree.
 */
const SOURCES: Readonly<Record<string, AssetSource>> = {
  // Redoc ships inside @redocly/cli as an ES module, the same build `redocly build-docs` uses.
  'redoc.standalone.js': {
    path: () => join(packageDir('@redocly/cli'), 'lib', 'chunks', 'redoc.standalone.js'),
    type: JS,
    transform: withoutRemoteLogo,
  },
  'rapidoc-min.js': {
    path: () => join(packageDir('rapidoc'), 'dist', 'rapidoc-min.js'),
    type: JS,
  },
  'docs-init.js': { path: () => join(here, 'public', 'docs-init.js'), type: JS },
  'pages.css': { path: () => join(here, 'public', 'pages.css'), type: CSS },
};

const REMOTE_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
// An empty 1×1 SVG: a valid image, so no broken-image box or alt text appears in its place.
const BLANK_IMAGE =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/**
 * Redoc 3 draws its attribution logo from cdn.redoc.ly. The CSP would block it, but the browser
 * would still try; a blank inline image takes its place, and the "API docs by Redocly" link
 * stays.
 */
export function withoutRemoteLogo(code: string): string {
  return code.replace(REMOTE_LOGO, BLANK_IMAGE);
}

/** A loaded asset: its bytes, a gzip copy made on first demand, and a strong ETag. */
export interface Asset {
  readonly type: string;
  readonly body: Buffer;
  readonly etag: string;
  gzipped(): Buffer;
}

/** Every whitelisted asset, plus `version`: a digest of all of them, used in their URLs. */
export interface AssetManifest {
  readonly version: string;
  readonly assets: ReadonlyMap<string, Asset>;
}

function makeAsset(type: string, body: Buffer): Asset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  let gz: Buffer | undefined;
  return {
    type,
    body,
    etag: `"${digest}"`,
    gzipped: () => {
      gz ??= gzipSync(body, { level: 6 });
      return gz;
    },
  };
}

/**
 * Reads every whitelisted file once. The URL version changes whenever any file changes, so
 * browsers may cache assets for a year without ever running stale code.
 */
export async function loadAssets(): Promise<AssetManifest> {
  const assets = new Map<string, Asset>();
  const all = createHash('sha256');
  for (const [name, source] of Object.entries(SOURCES).sort(([a], [b]) => a.localeCompare(b))) {
    const raw = await readFile(source.path());
    const body = source.transform ? Buffer.from(source.transform(raw.toString('utf8'))) : raw;
    const asset = makeAsset(source.type, body);
    assets.set(name, asset);
    all.update(name).update(asset.etag);
  }
  return { version: all.digest('hex').slice(0, 12), assets };
}

/** The names `loadAssets` serves, for tests. */
export const ASSET_NAMES: readonly string[] = Object.keys(SOURCES);
