/**
 * Prepares what the docs routes serve (`server/docs/prepared.ts`): bundles the spec with
 * Redocly and collects the browser files from the packages that ship them. Build time only:
 * the running service reads the result and needs neither Redocly nor those packages.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import {
  type PreparedAsset,
  type PreparedDocs,
  SITE_FILES,
  type SiteManifest,
} from '../../server/docs/prepared.js';
import { withoutRemoteLogo } from './remote-logo.js';
import { bundleSpec, toYaml, withoutRemoteAssets } from './spec-bundle.js';

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '..', '..');

function packageFile(name: string, file: string): string {
  return join(dirname(require.resolve(`${name}/package.json`)), file);
}

/** One file the docs pages may load, and the content type it is served with. */
interface AssetSource {
  readonly path: () => string;
  readonly type: string;
  /** Edits a vendored file; see the one use for why. */
  readonly transform?: (text: string) => string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The whitelist: the only files served under `/docs/assets/`. A name not listed here is a 404,
 * so no request can walk into `node_modules` or the source tree.
 */
const SOURCES: Readonly<Record<string, AssetSource>> = {
  // The `redoc` package's standalone browser build (a classic script defining `Redoc`).
  'redoc.standalone.js': {
    path: () => packageFile('redoc', 'bundles/redoc.standalone.js'),
    type: JS,
    transform: withoutRemoteLogo,
  },
  'rapidoc-min.js': { path: () => packageFile('rapidoc', 'dist/rapidoc-min.js'), type: JS },
  'docs-init.js': { path: () => join(ROOT, 'server', 'docs', 'public', 'docs-init.js'), type: JS },
  'pages.css': { path: () => join(ROOT, 'server', 'docs', 'public', 'pages.css'), type: CSS },
};

/** The names the docs routes serve under `/docs/assets/`. */
export const ASSET_NAMES: readonly string[] = Object.keys(SOURCES).sort();

/** Reads the whitelisted browser files (the same for every spec). */
export async function readDocsAssets(): Promise<PreparedAsset[]> {
  return Promise.all(
    ASSET_NAMES.map(async (name) => {
      const source = SOURCES[name];
      if (source === undefined) throw new Error(`no source for the docs asset ${name}`);
      const raw = await readFile(source.path());
      const body = source.transform ? Buffer.from(source.transform(raw.toString('utf8'))) : raw;
      return { name, type: source.type, body };
    }),
  );
}

/**
 * The served form of an already bundled document: remote logo dropped, `servers` removed (the
 * service adds its own), as JSON data and YAML text. `npm run dev` calls it on every save.
 */
export function preparedSpec(
  document: OpenApiDocument,
): Pick<PreparedDocs, 'spec' | 'specYaml'> & { dropped: readonly string[] } {
  const { doc, dropped } = withoutRemoteAssets(document);
  const { servers: _servers, ...spec } = doc;
  return { spec, specYaml: toYaml(spec), dropped };
}

/**
 * Bundles `specPath` (split files and guides resolved) into its served form and reads the
 * whitelisted browser files.
 */
export async function prepareDocs(
  specPath: string,
): Promise<PreparedDocs & { dropped: readonly string[] }> {
  const [spec, assets] = await Promise.all([
    bundleSpec(specPath).then(preparedSpec),
    readDocsAssets(),
  ]);
  return { ...spec, assets };
}

/** Writes `docs` into `dir` (emptied first) for `readPreparedDocs`. */
export async function writePreparedDocs(docs: PreparedDocs, dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, SITE_FILES.assetsDir), { recursive: true });
  const manifest: SiteManifest = {
    assets: docs.assets.map(({ name, type }) => ({ name, type })),
  };
  await Promise.all([
    writeFile(join(dir, SITE_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`),
    writeFile(join(dir, SITE_FILES.specJson), JSON.stringify(docs.spec)),
    writeFile(join(dir, SITE_FILES.specYaml), docs.specYaml),
    ...docs.assets.map((asset) =>
      writeFile(join(dir, SITE_FILES.assetsDir, asset.name), asset.body),
    ),
  ]);
}
