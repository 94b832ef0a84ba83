/**
 * "Generate into the tree", the one library behind `npm run generate` (scripts/generate.ts) and
 * the dev loop's regeneration (tooling/dev/regenerate.ts): every generated file for a bundled
 * document, plus the handler modules with a 501 stub added for each new operation, as absolute
 * path → text (`disk.ts` compares them with the files and writes them). The generators stay
 * pure (`generators/index.ts`); only the handler folder is read here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { reconcileHandlers, type StubReport } from '../../generators/handler-stubs.js';
import { generate } from '../../generators/index.js';
import type { OperationModel } from '../openapi/operations.js';

export interface TreeRequest {
  /** The repository root: `outDir` is relative to it. */
  root: string;
  /** The bundled OpenAPI 3.0 document. */
  document: unknown;
  /** Repository-relative folder of the generated files. */
  outDir: string;
  /** The command written into each file's header. */
  remakeCommand: string;
  /** Absolute folder of the handler modules; `null` leaves handlers alone. */
  handlersDir: string | null;
}

export interface TreeFiles {
  /** Absolute path → text, for every file that should exist (unchanged handlers left out). */
  files: Map<string, string>;
  operations: OperationModel[];
  /** How many of `files` are generated files (the rest are handler modules). */
  generated: number;
  /** Stubs added and orphan handlers, files absolute; `null` when handlers were left alone. */
  report: StubReport | null;
}

/**
 * What the tree should hold for `request.document`. Throws `DocumentError` for what the
 * generators refuse.
 *
 * @example treeFiles({ root, document, outDir: 'generated', remakeCommand: 'npm run generate', handlersDir: null })
 */
export function treeFiles(request: TreeRequest): TreeFiles {
  const result = generate(request.document, {
    outDir: request.outDir,
    remakeCommand: request.remakeCommand,
  });
  const files = new Map<string, string>();
  for (const [path, text] of result.files) files.set(resolve(request.root, path), text);
  const dir = request.handlersDir;
  const generated = files.size;
  if (dir === null) return { files, operations: result.operations, generated, report: null };
  const reconciled = reconcileHandlers(result.operations, readHandlers(dir));
  for (const [name, text] of reconciled.files) files.set(join(dir, name), text);
  const absolute = ({ operationId, file }: { operationId: string; file: string }) => ({
    operationId,
    file: join(dir, file),
  });
  return {
    files,
    operations: result.operations,
    generated,
    report: {
      added: reconciled.report.added.map(absolute),
      orphans: reconciled.report.orphans.map(absolute),
    },
  };
}

/** The `.ts` modules of the handler folder by file name (none when it does not exist). */
function readHandlers(dir: string): Map<string, string> {
  const existing = new Map<string, string>();
  if (!existsSync(dir)) return existing;
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.ts')) existing.set(name, readFileSync(join(dir, name), 'utf8'));
  }
  return existing;
}
