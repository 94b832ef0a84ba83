/**
 * `npm run build`: everything the service needs at run time, in `build/`, so a production
 * install (`npm ci --omit=dev` beside it) runs with runtime dependencies only:
 *
 * - `build/server/main.js` (+ chunks): `server/entry.mjs` bundled by esbuild, packages
 *   external: the Node version check of `scripts/check-node.mjs`, then `server/main.ts` as a
 *   lazily loaded chunk (so Node 20 prints the one-line message instead of crashing). Code
 *   splitting keeps the docs plugin a lazily loaded chunk too, as it is in the source.
 * - `build/cli.js`: `server/cli/entry.mjs` bundled the same way, sharing the chunks of
 *   `build/server/`: the operator commands (`patient-care keys|audit|doctor|migrate|worker|
 *   backup|restore`), which a production install runs without tsx or the sources.
 * - `build/site/`: the bundled spec (JSON and YAML) and the docs pages' browser files.
 * - `build/stamp.json`: when it was built, for `npm start`'s staleness check.
 */
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { prepareDocs, writePreparedDocs } from '../docs/prepare.js';

export const BUILD_STAMP = 'stamp.json';

export interface BuildResult {
  readonly outDir: string;
  readonly dropped: readonly string[];
  readonly ms: number;
}

/** Builds the server bundle and the docs site of the repository at `root` into `outDir`. */
export async function buildService(
  root: string,
  outDir = join(root, 'build'),
): Promise<BuildResult> {
  const started = performance.now();
  const serverDir = join(outDir, 'server');
  await rm(serverDir, { recursive: true, force: true });
  await rm(join(outDir, 'cli.js'), { force: true });
  await mkdir(outDir, { recursive: true });
  const [, docs] = await Promise.all([
    build({
      // One build for both entries: the code they share is one set of chunks in server/.
      entryPoints: [
        { in: join(root, 'server', 'entry.mjs'), out: 'server/main' },
        { in: join(root, 'server', 'cli', 'entry.mjs'), out: 'cli' },
      ],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      packages: 'external',
      splitting: true,
      outdir: outDir,
      chunkNames: 'server/[name]-[hash]',
      logLevel: 'warning',
    }),
    prepareDocs(join(root, 'spec', 'openapi.yaml')),
  ]);
  // Runnable as `./build/cli.js` too (its first line names node).
  await chmod(join(outDir, 'cli.js'), 0o755);
  await writePreparedDocs(docs, join(outDir, 'site'));
  await writeFile(
    join(outDir, BUILD_STAMP),
    `${JSON.stringify({ built: new Date().toISOString() })}\n`,
  );
  return { outDir, dropped: docs.dropped, ms: performance.now() - started };
}
