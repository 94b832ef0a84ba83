/**
 * The generated files of every older dated version, made by plain `npm run generate` beside
 * `generated/`: each version's types, client and route table in `generated/versions/DATE/`
 * (its document derived from the latest by `spec/versions/`), and `generated/versions/index.ts`,
 * the server's lazy map from date to route table. The server judges a request pinned to DATE
 * by that table, so the list of versions and their rules are the modules' alone: adding a
 * module and running generate is all a new version needs (`--check` sees a stale one).
 */
import { join, resolve } from 'node:path';
import { headerLine } from '../../generators/header.js';
import type { VersionRegistry } from '../../server/versioning/registry.js';
import { type TypesMaker, treeFiles } from './tree.js';

/** The remake command written into an older version's files (`--version` makes one alone). */
export const versionRemakeCommand = (version: string): string =>
  `npm run generate -- --version ${version}`;

/** The text of `generated/versions/index.ts` for `dates` (older versions, newest first). */
export function versionIndexText(dates: readonly string[]): string {
  const entries = [...dates]
    .sort()
    .map((date) => `  '${date}': () => import('./${date}/routes.js'),`);
  return [
    headerLine(),
    "import type { JsonSchema, RouteDefinition } from '../../contract/route-types.js';",
    '',
    '/** The route table of each older dated version, loaded the first time a request needs it. */',
    'export const versionRouteTables: Readonly<',
    '  Record<',
    '    string,',
    '    () => Promise<{',
    '      routes: readonly RouteDefinition[];',
    '      componentSchemas: readonly JsonSchema[];',
    '    }>',
    '  >',
    '> = {',
    ...entries,
    '};',
    '',
  ].join('\n');
}

/**
 * Every file of the older versions: absolute path → text. `derive` gives a version's document
 * (the latest one, bundled, rewritten by the modules); `types` makes their `types.ts` (in this
 * thread when absent). The versions are made side by side (their types may be in another
 * thread); a failure is the first version's, in date order.
 */
export async function olderVersionFiles(
  root: string,
  registry: VersionRegistry,
  derive: (version: string) => unknown,
  types?: TypesMaker,
): Promise<Map<string, string>> {
  const older = registry.supported.filter((date) => date !== registry.latest);
  const trees = await inOrder(
    older.map(async (version) =>
      treeFiles({
        root,
        document: derive(version),
        outDir: join('generated', 'versions', version),
        remakeCommand: versionRemakeCommand(version),
        handlersDir: null,
        ...(types ? { types } : {}),
      }),
    ),
  );
  const files = new Map<string, string>();
  for (const tree of trees) for (const [path, text] of tree.files) files.set(path, text);
  files.set(resolve(root, 'generated/versions/index.ts'), versionIndexText(older));
  return files;
}

/** Every value of `pending`, or the failure of the first one (in the list's order) that failed. */
async function inOrder<T>(pending: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(pending);
  return settled.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}
