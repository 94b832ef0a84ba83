/**
 * `npm run docs`: builds the static API reference from `spec/openapi.yaml` into `build/docs/`.
 *
 * - `index.html`: Redoc's server-rendered page (`redocly build-docs`) with Redoc inlined, so it
 *   works offline and from disk; hardened by `hardenStaticPage` and checked to load nothing from
 *   another origin (the build fails otherwise).
 * - `openapi.json`, `openapi.yaml`: the bundled spec (split files and guides resolved).
 * - `reference.json`: what the page renders, the bundled spec shaped by `referenceSpec` exactly
 *   as the served `/docs` reads `/docs/reference.json`: each topic once in the sidebar, an
 *   anchored entry per error code.
 *
 * Usage: `npm run docs [-- --spec path/to/openapi.yaml --out dir]`
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { externalLoads } from '../server/docs/external-references.js';
import { redocCliFlags } from '../server/docs/redoc-options.js';
import { referenceSpec } from '../server/docs/reference-spec.js';
import { type Parsed, runCommand } from '../tooling/cli/command.js';
import { bundleSpec, toYaml, withoutRemoteAssets } from '../tooling/docs/spec-bundle.js';
import { hardenStaticPage } from '../tooling/docs/static-page.js';

const run = promisify(execFile);

function redoclyBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
}

const SPEC = {
  name: 'npm run docs --',
  prefix: 'docs',
  summary:
    "Builds the static API reference (Redoc's server-rendered page, offline, no external loads) and the bundled spec into a folder; the service serves it at /docs/static.",
  options: {
    spec: { type: 'string', value: 'FILE', default: 'spec/openapi.yaml', description: 'The spec.' },
    out: { type: 'string', value: 'DIR', default: 'build/docs', description: 'Output folder.' },
  },
} as const;

async function main({ values }: Parsed<(typeof SPEC)['options']>): Promise<number> {
  const specPath = resolve(values.spec);
  const outDir = resolve(values.out);
  await mkdir(outDir, { recursive: true });

  const { doc, dropped } = withoutRemoteAssets(await bundleSpec(specPath));
  for (const part of dropped) console.warn(`docs: left out ${part}: it loads from another origin`);
  const jsonPath = join(outDir, 'openapi.json');
  await writeFile(jsonPath, `${JSON.stringify(doc, null, 2)}\n`);
  await writeFile(join(outDir, 'openapi.yaml'), toYaml(doc));
  const referencePath = join(outDir, 'reference.json');
  await writeFile(referencePath, `${JSON.stringify(referenceSpec(doc), null, 2)}\n`);

  const htmlPath = join(outDir, 'index.html');
  const title = String((doc.info as { title?: unknown } | undefined)?.title ?? 'API reference');
  await run(
    process.execPath,
    [
      redoclyBin(),
      'build-docs',
      referencePath,
      '--output',
      htmlPath,
      '--inlineBundle',
      '--title',
      title,
      ...redocCliFlags(),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const html = hardenStaticPage(await readFile(htmlPath, 'utf8'));
  await writeFile(htmlPath, html);

  const external = externalLoads(html);
  if (external.length > 0) {
    console.error(`docs: ${htmlPath} would load from other origins:\n  ${external.join('\n  ')}`);
    return 1;
  }
  const size = Buffer.byteLength(html);
  console.log(`docs: wrote ${htmlPath} (${Math.round(size / 1024)} KiB, no external loads)`);
  return 0;
}

await runCommand(SPEC, main);
