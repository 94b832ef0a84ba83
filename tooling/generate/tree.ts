/**
 * "Generate into the tree", the one library behind `npm run generate` (scripts/generate.ts) and
 * the dev loop's regeneration (tooling/dev/regenerate.ts): every generated file for a bundled
 * document, plus the handler modules with a 501 stub added for each new operation, as absolute
 * path → text (`disk.ts` compares them with the files and writes them). The generators stay
 * pure (`generators/`); only the handler folder is read here, and what its modules export is
 * kept by content (`handler-exports.ts`).
 *
 * `types.ts` comes from a `TypesMaker`: by default made in this thread, loading openapi-typescript
 * and TypeScript on first use; `npm run generate` passes one that makes it in a worker thread
 * (`types-thread.ts`) while this thread makes the routes, the client and the stubs, or on our
 * spec one that makes it here from cached pieces (`piecedTypesInThreadOnce`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { artifactFiles, planArtifacts, routesAndClient } from '../../generators/artifacts.js';
import { reconcileHandlers, type StubReport } from '../../generators/handler-stubs.js';
import type { OperationModel } from '../openapi/operations.js';
import { cachedExports } from './handler-exports.js';
import type { StoredPieces } from './pieces-cache.js';

/**
 * `types.ts`'s text (without the header) for a document the generators accepted; rejects with
 * what `generateTypes` threw. It may be started earlier and only looked up here.
 */
export type TypesMaker = (document: OpenApiDocument) => Promise<string>;

/** `generateTypes` in this thread, its module (openapi-typescript, TypeScript) loaded on first use. */
export const typesInThread: TypesMaker = async (document) =>
  (await import('../../generators/types.js')).generateTypes(document);

/** `make` ({@link typesInThread}), made once per document object however often it is asked for. */
export function typesInThreadOnce(make: TypesMaker = typesInThread): TypesMaker {
  const made = new WeakMap<object, Promise<string>>();
  return (document) => {
    let text = made.get(document);
    if (!text) {
      text = make(document);
      text.catch(() => undefined);
      made.set(document, text);
    }
    return text;
  };
}

/**
 * {@link typesInThreadOnce} made from pieces (generators/types-pieces.ts) kept in the piece
 * cache of `piecesFolder` (pieces-cache.ts, read on first use); `save` writes the ones used back.
 * For `npm run generate` on our spec when the types thread is not wanted.
 */
export function piecedTypesInThreadOnce(piecesFolder: string): {
  types: TypesMaker;
  save(): void;
} {
  let pieces: StoredPieces | undefined;
  const types = typesInThreadOnce(async (document) => {
    const [{ generateTypesPieced }, { openPieceCache }] = await Promise.all([
      import('../../generators/types-pieces.js'),
      import('./pieces-cache.js'),
    ]);
    pieces ??= openPieceCache(piecesFolder);
    return generateTypesPieced(structuredClone(document), pieces);
  });
  return { types, save: () => pieces?.save() };
}

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
  /** Where `types.ts`'s text comes from; {@link typesInThread} when absent. */
  types?: TypesMaker;
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
 * What the tree should hold for `request.document`. Rejects with `DocumentError` for what the
 * generators refuse, the first one `generate()` would throw (types before routes and client).
 *
 * @example await treeFiles({ root, document, outDir: 'generated', remakeCommand: 'npm run generate', handlersDir: null })
 */
export async function treeFiles(request: TreeRequest): Promise<TreeFiles> {
  const plan = planArtifacts(request.document, {
    outDir: request.outDir,
    remakeCommand: request.remakeCommand,
  });
  const types = (request.types ?? typesInThread)(plan.document);
  // Awaited below, after this thread's own work; its failure must not go unhandled meanwhile.
  types.catch(() => undefined);
  // The routes, the client and the stubs meanwhile; a failure is thrown after the types', in
  // the order `generate()` meets them.
  const dir = request.handlersDir;
  let rest: [string, string][] = [];
  let reconciled: ReturnType<typeof reconcileHandlers> | null = null;
  let failed: { error: unknown } | undefined;
  try {
    rest = routesAndClient(plan);
    if (dir !== null) reconciled = reconcileInto(dir, request.root, plan.operations);
  } catch (error) {
    failed = { error };
  }
  const typesText = await types;
  if (failed) throw failed.error;
  const files = new Map<string, string>();
  for (const [path, text] of artifactFiles(plan, typesText, rest)) {
    files.set(resolve(request.root, path), text);
  }
  const generated = files.size;
  if (dir === null || reconciled === null) {
    return { files, operations: plan.operations, generated, report: null };
  }
  for (const [name, text] of reconciled.files) files.set(join(dir, name), text);
  const absolute = ({ operationId, file }: { operationId: string; file: string }) => ({
    operationId,
    file: join(dir, file),
  });
  return {
    files,
    operations: plan.operations,
    generated,
    report: {
      added: reconciled.report.added.map(absolute),
      orphans: reconciled.report.orphans.map(absolute),
    },
  };
}

/** The stubs and index for the handler folder `dir`, its modules' exports kept by content. */
function reconcileInto(dir: string, root: string, operations: OperationModel[]) {
  const exports = cachedExports(root);
  const reconciled = reconcileHandlers(operations, readHandlers(dir), exports.read);
  exports.save();
  return reconciled;
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
