/**
 * Everything one `npm run generate` run writes for a bundled document: the generated files of
 * the requested version (with the handler stubs for our latest spec) and, for plain generate on
 * our spec, every older dated version's files. Generated files come first in the map, handler
 * modules last; `generated` says where the handler modules begin.
 */
import type { StubReport } from '../../generators/handler-stubs.js';
import { treeFiles } from './tree.js';
import { olderVersionFiles } from './versions.js';

export interface OurTreeRequest {
  root: string;
  /** The bundled document, as the latest version has it. */
  document: unknown;
  outDir: string;
  remakeCommand: string;
  /** Absolute folder of the handler modules; `null` leaves handlers alone. */
  handlersDir: string | null;
  /** An older dated version to derive and generate instead of the latest. */
  version?: string;
  /** Also every older dated version's files (plain generate on our spec). */
  olderVersions: boolean;
}

export interface OurTree {
  /** Absolute path → text, generated files first. */
  files: Map<string, string>;
  /** How many of `files` are generated files. */
  generated: number;
  operations: number;
  report: StubReport | null;
}

/**
 * The tree for `request`. Throws `DocumentError` for what the generators refuse.
 *
 * @example ourTree({ root, document, outDir: 'generated', remakeCommand: 'npm run generate', handlersDir: null, olderVersions: false })
 */
export async function ourTree(request: OurTreeRequest): Promise<OurTree> {
  let document = request.document;
  const versioning =
    request.version !== undefined || request.olderVersions
      ? await import('../../server/versioning/index.js')
      : undefined;
  if (versioning && request.version !== undefined) {
    document = versioning.deriveDocument(request.document, versioning.versions, request.version);
  }
  const tree = treeFiles({
    root: request.root,
    document,
    outDir: request.outDir,
    remakeCommand: request.remakeCommand,
    handlersDir: request.handlersDir,
  });
  let { files, generated } = tree;
  if (versioning && request.olderVersions) {
    // Every older version's files too: the server judges a pinned request by its table.
    const { deriveDocument, versions } = versioning;
    const older = olderVersionFiles(request.root, versions, (date) =>
      deriveDocument(request.document, versions, date),
    );
    const entries = [...files];
    files = new Map([...entries.slice(0, generated), ...older, ...entries.slice(generated)]);
    generated += older.size;
  }
  return { files, generated, operations: tree.operations.length, report: tree.report };
}
