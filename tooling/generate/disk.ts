/**
 * Generated text against the disk: which files are missing or differ, writing those, and which
 * files in the way were not written by the generators. Kept apart from `tree.ts` so a run that
 * reuses cached text (tooling/generate/cache.ts) compares and writes without loading the
 * generators, TypeScript or openapi-typescript.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { headerLine } from '../../generators/header.js';

/** The paths of `files` whose file is missing or holds other text. */
export function staleFiles(files: ReadonlyMap<string, string>): string[] {
  return [...files]
    .filter(([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text)
    .map(([path]) => path);
}

/** Writes `paths` of `files`, making folders as needed. */
export function writeTree(files: ReadonlyMap<string, string>, paths: readonly string[]): void {
  for (const path of paths) {
    const text = files.get(path);
    if (text === undefined) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
}

/** How every generated file begins: the header up to its remake command. */
const GENERATED_MARK = headerLine('').split(';')[0] ?? '';

/**
 * The paths among `paths` that exist and were not written by the generators (no generated
 * header): an `--out` folder may be someone else's project, whose files are never overwritten.
 */
export function foreignFiles(paths: readonly string[]): string[] {
  return paths.filter(
    (path) => existsSync(path) && !readFileSync(path, 'utf8').startsWith(GENERATED_MARK),
  );
}
