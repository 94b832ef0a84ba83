/**
 * Loading for `scripts/generate.ts`: parse the document (and the files it `$ref`s) with
 * Redocly's resolver, check the version, lint, bundle. The only part of generation that reads
 * files; `generators/` receives the bundled object.
 */
import { realpathSync } from 'node:fs';
import {
  BaseResolver,
  bundle,
  type Config,
  createConfig,
  type Document,
  getLineColLocation,
  lintDocument,
  loadConfig,
  type NormalizedProblem,
} from '@redocly/openapi-core';
import { assertOpenApi30, type OpenApiDocument } from './document.js';
import { DocumentError } from './errors.js';

export interface LoadedDocument {
  bundled: OpenApiDocument;
  /** The root file as Redocly parsed it, to turn pointers into lines. */
  root: Document;
  problems: NormalizedProblem[];
}

/** A problem ready to print: `file:line:col  pointer  message`. */
export interface Located {
  severity: 'error' | 'warn';
  where: string;
  pointer: string;
  message: string;
  ruleId?: string;
}

/**
 * Our spec is linted with the project's `redocly.yaml`; any other document only structurally
 * (Redocly's `struct` rule), because real-world documents break style rules by the hundred.
 */
export async function lintConfig(projectConfig: string | null): Promise<Config> {
  if (projectConfig) return loadConfig({ configPath: projectConfig });
  return createConfig({ rules: { struct: 'error' } });
}

/** A generator error raised while loading, with the parsed root so its line can be found. */
export class LoadError extends Error {
  constructor(
    readonly error: DocumentError,
    readonly root: Document,
  ) {
    super(error.message);
  }
}

/** Parses, version-checks, lints and bundles `file`. Throws `LoadError` for a wrong version. */
export async function loadDocument(file: string, config: Config): Promise<LoadedDocument> {
  const resolver = new BaseResolver(config.resolve);
  const root = await resolver.resolveDocument(null, realpathSync(file), true);
  if (root instanceof Error || !('parsed' in root)) {
    throw new Error(`Cannot parse ${file}: ${(root as Error).message}`);
  }
  try {
    assertOpenApi30(root.parsed);
  } catch (error) {
    if (error instanceof DocumentError) throw new LoadError(error, root);
    throw error;
  }
  const problems = await lintDocument({
    document: root,
    config,
    externalRefResolver: resolver,
  });
  // A single-file document is already "bundled"; re-walking 13 MB to prove it costs ~2 s.
  const bundled = hasExternalRefs(root.parsed)
    ? ((await bundle({ config, doc: root, dereference: false, externalRefResolver: resolver }))
        .bundle.parsed as OpenApiDocument)
    : root.parsed;
  return { bundled, root, problems };
}

/** True when some `$ref` points outside the file. */
export function hasExternalRefs(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(hasExternalRefs);
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return true;
    if (typeof value === 'object' && hasExternalRefs(value)) return true;
  }
  return false;
}

/** Redocly's problem → printable location (the first location is where the node is). */
export function locateProblem(problem: NormalizedProblem, cwd: string): Located {
  const location = problem.location[0];
  let where = '';
  if (location) {
    try {
      const { start } = getLineColLocation(location);
      where = `${relativeTo(cwd, location.source.absoluteRef)}:${start.line}:${start.col}`;
    } catch {
      where = relativeTo(cwd, location.source.absoluteRef);
    }
  }
  return {
    severity: problem.severity === 'error' ? 'error' : 'warn',
    where,
    pointer: location?.pointer ?? '#',
    message: problem.message,
    ruleId: problem.ruleId,
  };
}

/** A generator's error → printable location, looked up in the root file. */
export function locateError(
  error: DocumentError,
  root: Document | null,
  file: string,
  cwd: string,
): Located {
  let where = relativeTo(cwd, file);
  if (root) {
    // The pointer may cross into another file of a split spec; then the nearest node that
    // exists in the root file is named, which is where the `$ref` to follow sits.
    let pointer = error.pointer;
    for (;;) {
      try {
        const { start } = getLineColLocation({ source: root.source, pointer, reportOnKey: false });
        if (start.line > 0) {
          where = `${relativeTo(cwd, root.source.absoluteRef)}:${start.line}:${start.col}`;
          break;
        }
      } catch {
        // fall through to the parent pointer
      }
      if (pointer === '#' || !pointer.includes('/')) break;
      pointer = pointer.slice(0, pointer.lastIndexOf('/')) || '#';
    }
  }
  return { severity: 'error', where, pointer: error.pointer, message: error.message };
}

function relativeTo(cwd: string, file: string): string {
  return file.startsWith(`${cwd}/`) ? file.slice(cwd.length + 1) : file;
}

export { DocumentError };
