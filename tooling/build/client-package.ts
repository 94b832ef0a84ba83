/**
 * The generated client as an installable npm package (`npm run build:client`, entry
 * `scripts/build-client.ts`), in `build/client/` (`npm pack build/client` makes the tarball).
 *
 * - name `@patient-care/client`, version from the spec's `info.version` as semver
 *   (`2026-11-01` → `2026.11.1`), ESM JavaScript with `.d.ts` declarations, compiled by `tsc`
 *   with the options of `tsconfig.client.json` from a staging copy of `client/` and
 *   `generated/` (`<out>-src`, removed after a good build);
 * - `exports`: `.` is the browser-safe entry (`createPatientCareClient`, the spec's types, the
 *   runtime helpers), `./webhooks` the server entry (`verifyWebhook`, `signWebhookPayload`),
 *   which needs `node:crypto`;
 * - the build fails if the browser entry's import graph reaches a Node built-in.

 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { readDocument } from '../openapi/load.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** The package's npm name. */
export const PACKAGE_NAME = '@patient-care/client';
const HEADER =
  '// Written by tooling/build/client-package.ts; do not edit. Remake: npm run build:client';

/**
 * A dated API version as semver: `2026-11-01` → `2026.11.1` (semver forbids leading zeros).
 * @example packageVersion('2026-11-01') // '2026.11.1'
 */
export function packageVersion(apiVersion: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(apiVersion);
  if (match === null) throw new Error(`info.version is not a dated version: ${apiVersion}`);
  return match.slice(1).map(Number).join('.');
}

/** The browser-safe entry: the generated client, the spec's types and the runtime. */
const INDEX_ENTRY = `${HEADER}
/**
 * The Patient-Care API client, safe for browsers and servers. Webhook verification needs
 * Node's crypto and lives in the \`${PACKAGE_NAME}/webhooks\` entry.
 */
import type { components, Readable, Writable } from './generated/types.js';

export * from './client/index.js';
export {
  apiVersion,
  createClient,
  createPatientCareClient,
  defaultBaseUrl,
  type Operations,
  operations,
  type PatientCareClient,
} from './generated/client.js';
export type {
  components,
  operations as OperationTypes,
  paths,
  Readable,
  Writable,
} from './generated/types.js';

type Named = components['schemas'];
/** Every schema of the spec as the API returns it, e.g. \`Schemas['Patient']\`. */
export type Schemas = { [Name in keyof Named]: Readable<Named[Name]> };
/** Every schema as a request takes it (readOnly fields left out), e.g. \`RequestSchemas['PatientCreateParams']\`. */
export type RequestSchemas = { [Name in keyof Named]: Writable<Named[Name]> };
`;

/** The server entry: webhook signatures (Node-only). */
const WEBHOOKS_ENTRY = `${HEADER}
/** Webhook signature verification for your server (Node.js: uses \`node:crypto\`). */
export * from './client/webhook.js';
`;

/** Modules of contract/ the client package ships (what client/ imports from there). */
const CONTRACT_FILES = ['actor.ts', 'webhook-signature.ts'];

/** The package manifest. */
export function packageManifest(version: string, dependencies: Record<string, string>): object {
  return {
    name: PACKAGE_NAME,
    version,
    description: 'Typed client for the Patient-Care API (generated from its OpenAPI document)',
    license: 'UNLICENSED',
    type: 'module',
    sideEffects: false,
    engines: { node: '>=20' },
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './webhooks': { types: './dist/webhooks.d.ts', default: './dist/webhooks.js' },
      './package.json': './package.json',
    },
    files: ['dist', 'README.md'],
    dependencies,
  };
}

/**
 * The package's README: `client/README.md` (the client guide, kept beside the code it
 * documents), with the package file's version filled in. Its blocks are type-checked and run
 * by test/package/client-package.test.ts.
 */
async function readme(root: string, version: string): Promise<string> {
  const guide = await readFile(join(root, 'client', 'README.md'), 'utf8');
  return guide
    .replace(/^# .*$/m, `# ${PACKAGE_NAME} ${version}`)
    .replaceAll('patient-care-client-<version>.tgz', `patient-care-client-${version}.tgz`);
}

/** Specifiers a module imports or re-exports (static and literal dynamic imports). */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) if (match[1]) found.add(match[1]);
  }
  return [...found];
}

/** Whether a bare specifier names a Node built-in (`node:fs`, `fs`, `fs/promises`). */
export function isNodeBuiltin(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  return builtinModules.includes(specifier.split('/')[0] ?? '') && !specifier.startsWith('.');
}

/**
 * Follows the relative imports from `entry` (a built `.js` file) and returns every module
 * reached and every bare specifier imported along the way.
 */
export async function importGraph(entry: string): Promise<{ files: string[]; bare: string[] }> {
  const files = new Set<string>();
  const bare = new Set<string>();
  const queue = [resolve(entry)];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importSpecifiers(await readFile(file, 'utf8'))) {
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier));
      else bare.add(specifier);
    }
  }
  return { files: [...files].sort(), bare: [...bare].sort() };
}

/** The dependency range for a package, from the version installed here. */
async function caretRange(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(require.resolve(`${name}/package.json`), 'utf8')) as {
    version: string;
  };
  return `^${manifest.version}`;
}

/**
 * Copies the sources into `staging` with the two entries and a tsconfig extending
 * `tsconfig.client.json`. `staging` must be inside the repository, so that `@types/node` and
 * openapi-fetch resolve from its `node_modules`.
 */
async function stage(root: string, staging: string, outDir: string): Promise<void> {
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, 'client'), { recursive: true });
  await mkdir(join(staging, 'generated'), { recursive: true });
  await mkdir(join(staging, 'contract'), { recursive: true });
  for (const name of await readdir(join(root, 'client'))) {
    if (name.endsWith('.ts')) await cp(join(root, 'client', name), join(staging, 'client', name));
  }
  // The webhook scheme the server also signs with (client/webhook.ts re-exports it).
  for (const name of CONTRACT_FILES) {
    await cp(join(root, 'contract', name), join(staging, 'contract', name));
  }
  for (const name of ['client.ts', 'types.ts']) {
    await cp(join(root, 'generated', name), join(staging, 'generated', name));
  }
  await writeFile(join(staging, 'index.ts'), INDEX_ENTRY);
  await writeFile(join(staging, 'webhooks.ts'), WEBHOOKS_ENTRY);
  const tsconfig = {
    extends: join(root, 'tsconfig.client.json'),
    compilerOptions: { rootDir: '.', outDir: join(outDir, 'dist') },
    include: ['**/*.ts'],
  };
  await writeFile(join(staging, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
}

/** Builds the package into `outDir`; returns its version. */
export async function buildClientPackage(root: string, outDir: string): Promise<string> {
  const { bundled } = await readDocument(join(root, 'spec/openapi.yaml'));
  const apiVersion = bundled.info.version;
  const version = packageVersion(apiVersion);
  const staging = `${outDir}-src`;
  await rm(outDir, { recursive: true, force: true });
  await stage(root, staging, outDir);
  const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', staging], { cwd: root }).catch(
    (error: { stdout?: string }) => {
      throw new Error(`tsc failed (sources kept in ${staging}):\n${error.stdout ?? error}`);
    },
  );
  await rm(staging, { recursive: true, force: true });
  const { bare } = await importGraph(join(outDir, 'dist', 'index.js'));
  const nodeOnly = bare.filter(isNodeBuiltin);
  if (nodeOnly.length > 0) {
    throw new Error(`the browser entry imports Node built-ins: ${nodeOnly.join(', ')}`);
  }
  const dependencies = {
    'openapi-fetch': await caretRange('openapi-fetch'),
    // The declarations import its types (openapi-fetch depends on it, but say so directly).
    'openapi-typescript-helpers': await caretRange('openapi-typescript-helpers'),
  };
  const undeclared = bare.filter((s) => !isNodeBuiltin(s) && !(s in dependencies));
  if (undeclared.length > 0) throw new Error(`undeclared imports: ${undeclared.join(', ')}`);
  await writeFile(
    join(outDir, 'package.json'),
    `${JSON.stringify(packageManifest(version, dependencies), null, 2)}\n`,
  );
  await writeFile(join(outDir, 'README.md'), await readme(root, version));
  return version;
}
