/**
 * The content cache of `npm run generate` on our spec: a SHA-256 of everything the output
 * depends on (the spec folder with its guides and version modules, the generator and loader
 * sources, the handler modules, the locked dependency versions, Node's version and the
 * command's options) names an entry holding the text of every file that run produced. When
 * nothing the key covers has changed, generate reuses that text instead of loading Redocly,
 * TypeScript and openapi-typescript again; it still compares the text with the real files, so
 * `--check` finds a stale or hand-edited file whatever the cache holds. An entry is written
 * only after a run that succeeded, is never trusted if it does not parse, and lives under
 * `node_modules/.cache/patient-care/generate` (or `$PATIENT_CARE_CACHE_DIR`), never in
 * `generated/`. Deleting the folder is always safe: the next run rebuilds it.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * Repository paths (files or folders) whose content decides what generate writes for our spec.
 * Every module `scripts/generate.ts` imports lies under one of them (test/generators/cache.test.ts
 * walks the import graph to keep it so); `package-lock.json` stands for the dependencies.
 */
export const GENERATE_INPUTS: readonly string[] = [
  'package-lock.json',
  'spec',
  'contract',
  'generators',
  'scripts/generate.ts',
  'server/cli',
  'server/versioning',
  'tooling/cli',
  'tooling/generate',
  'tooling/openapi',
];

/** Bumped when the entry's shape changes, so an older entry is never read as a newer one. */
const FORMAT = 2;
/** Entries kept; older ones are removed when a new one is written. */
const KEEP = 8;

/** What one successful run produced, paths relative to the repository root. */
export interface CachedRun {
  /** Every file the run said should exist, in the run's order: path → text. */
  files: [string, string][];
  /** How many of `files` are generated files (the rest are handler modules). */
  generated: number;
  operations: number;
  /** Stubs added and orphan handlers (files relative), or `null` when handlers were left alone. */
  report: {
    added: { operationId: string; file: string }[];
    orphans: { operationId: string; file: string }[];
  } | null;
}

/** Where entries live: `$PATIENT_CARE_CACHE_DIR`, else under the repository's node_modules. */
export function cacheFolder(root: string): string {
  return (
    process.env.PATIENT_CARE_CACHE_DIR ??
    join(root, 'node_modules', '.cache', 'patient-care', 'generate')
  );
}

/**
 * The key of a run: every file under `inputs` (repository-relative, sorted, name and bytes),
 * then `options`. A missing input counts as such, so creating it changes the key too.
 */
export function inputsKey(
  root: string,
  inputs: readonly string[],
  options: readonly string[],
): string {
  const hash = createHash('sha256');
  hash.update(`generate cache ${FORMAT}\0node ${process.version}\0`);
  for (const option of options) hash.update(`option ${option}\0`);
  for (const input of inputs) {
    const path = join(root, input);
    if (!existsSync(path)) {
      hash.update(`missing ${input}\0`);
      continue;
    }
    for (const file of filesUnder(path)) {
      hash.update(`file ${relative(root, file).split(sep).join('/')}\0`);
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  }
  return hash.digest('hex');
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  const out: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(child));
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

/** The entry for `key`, or `undefined` when there is none or it cannot be read as one. */
export function readRun(root: string, key: string): CachedRun | undefined {
  const file = join(cacheFolder(root), `${key}.json`);
  if (!existsSync(file)) return undefined;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as { format?: unknown; run?: CachedRun };
    const run = entry.run;
    if (entry.format !== FORMAT || !run || !Array.isArray(run.files)) return undefined;
    return run;
  } catch {
    return undefined;
  }
}

/**
 * Stores `run` under `key` (written whole, then renamed, so a reader never sees half an entry)
 * and removes all but the newest entries. A cache that cannot be written is no error.
 */
export function writeRun(root: string, key: string, run: CachedRun): void {
  const folder = cacheFolder(root);
  try {
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${key}.json`);
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ format: FORMAT, run }));
    renameSync(partial, file);
    const entries = readdirSync(folder)
      // Entries only: the folder also holds the types thread's piece cache (pieces-cache.ts).
      .filter((name) => /^[0-9a-f]{64}\.json$/.test(name))
      .map((name) => ({ name, at: statSync(join(folder, name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { name } of entries.slice(KEEP)) rmSync(join(folder, name), { force: true });
  } catch {
    // Read-only node_modules, a full disk: the next run just does the work again.
  }
}
