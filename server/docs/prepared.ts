/**
 * What the docs routes serve, prepared ahead of time by `npm run build` (tooling/docs/) and read
 * here without any build-time library: the bundled spec (JSON data and YAML text, both without
 * `servers`, which the service adds from its own settings) and the browser files the pages load.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenApiDocument } from '../../contract/openapi-document.js';

/** One browser file a docs page loads. */
export interface PreparedAsset {
  readonly name: string;
  /** Its `Content-Type`. */
  readonly type: string;
  readonly body: Buffer;
}

/** Everything the docs plugin serves. */
export interface PreparedDocs {
  /** The bundled spec without `servers`. */
  readonly spec: OpenApiDocument;
  /** The same document as YAML text, without `servers`. */
  readonly specYaml: string;
  /** The only files served under `/docs/assets/` (the whitelist). */
  readonly assets: readonly PreparedAsset[];
}

/** The index `writePreparedDocs` leaves beside the files. */
export interface SiteManifest {
  readonly assets: readonly { name: string; type: string }[];
}

export const SITE_FILES = {
  manifest: 'manifest.json',
  specJson: 'openapi.json',
  specYaml: 'openapi.yaml',
  assetsDir: 'assets',
} as const;

/**
 * Where `npm run build` put the docs site: `build/site`. Found from this module, bundled
 * (`build/server/*.js`) or run from source (`server/docs/`).
 */
export function builtSiteDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const bundled = join(here, '..', 'site');
  return existsSync(join(bundled, SITE_FILES.manifest))
    ? bundled
    : join(here, '..', '..', 'build', 'site');
}

/** Reads a site written by the build. Throws, naming the folder, when it is missing. */
export async function readPreparedDocs(dir: string): Promise<PreparedDocs> {
  const manifestText = await readFile(join(dir, SITE_FILES.manifest), 'utf8').catch(() => {
    throw new Error(`no docs site in ${dir}: run npm run build`);
  });
  const manifest = JSON.parse(manifestText) as SiteManifest;
  const [specJson, specYaml, assets] = await Promise.all([
    readFile(join(dir, SITE_FILES.specJson), 'utf8'),
    readFile(join(dir, SITE_FILES.specYaml), 'utf8'),
    Promise.all(
      manifest.assets.map(async ({ name, type }) => ({
        name,
        type,
        body: await readFile(join(dir, SITE_FILES.assetsDir, name)),
      })),
    ),
  ]);
  return { spec: JSON.parse(specJson) as OpenApiDocument, specYaml, assets };
}
