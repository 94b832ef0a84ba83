/**
 * The docs `npm run dev` serves: each contract's bundled document prepared in memory the way
 * `npm run build` prepares `build/site` (tooling/docs/prepare.ts), so `/docs` and `/openapi.*`
 * go through the same docs plugin, bytes and ETags as in production. The browser files are
 * read once per service process; only the spec is redone per save.
 */

import type { OpenApiDocument } from '../../contract/openapi-document.js';
import {
  builtSiteDir,
  type PreparedAsset,
  type PreparedDocs,
  readPreparedDocs,
} from '../../server/docs/prepared.js';

// Loaded on first use: it brings Redocly's YAML writer, which a code-change restart need not wait for.
const prepare = () => import('../docs/prepare.js');

/** Served while the spec has never been good in this process and nothing was built: the banner explains. */
const PLACEHOLDER: OpenApiDocument = {
  openapi: '3.0.3',
  info: { title: 'No valid spec yet', version: '0' },
  paths: {},
};

export class ServedDocs {
  private assets: Promise<PreparedAsset[]> | undefined;

  /**
   * A docs `load` for `document`, prepared from now on (beside the app being built), so the
   * first request after the swap does not wait for it.
   */
  loaderFor(document: OpenApiDocument): () => Promise<PreparedDocs> {
    const prepared = this.prepare(document);
    // Nobody may ask before the next swap; a failure is reported when someone does.
    prepared.catch(() => {});
    return () => prepared;
  }

  /**
   * Before any good contract (the spec was broken at start): the last `npm run build`'s site if
   * there is one, else an empty reference the live-reload banner stands on.
   */
  fallback(): () => Promise<PreparedDocs> {
    return () => readPreparedDocs(builtSiteDir()).catch(() => this.prepare(PLACEHOLDER));
  }

  private async prepare(document: OpenApiDocument): Promise<PreparedDocs> {
    const { preparedSpec, readDocsAssets } = await prepare();
    this.assets ??= readDocsAssets().catch((error: unknown) => {
      this.assets = undefined;
      throw error;
    });
    const { spec, specYaml } = preparedSpec(document);
    return { spec, specYaml, assets: await this.assets };
  }
}
