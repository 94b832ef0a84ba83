/**
 * Everything one `npm run generate` run writes for a bundled document: the generated files of
 * the requested version (with the handler stubs for our latest spec) and, for plain generate on
 * our spec, every older dated version's files. Generated files come first in the map, handler
 * modules last; `generated` says where the handler modules begin.
 */
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import type { StubReport } from '../../generators/handler-stubs.js';
import { type TypesMaker, treeFiles } from './tree.js';
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
  /** Where `types.ts`'s texts come from (tooling/generate/tree.ts); this thread when absent. */
  types?: TypesMaker;
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
  // Each older version's document derived once; with a types thread, sent to it before this
  // thread starts on the latest version's routes, so the thread never waits for one.
  const derived = new Map<string, unknown>();
  const deriveOlder = (date: string): unknown => {
    if (!versioning) throw new Error('no version modules loaded');
    if (!derived.has(date)) {
      derived.set(date, versioning.deriveDocument(request.document, versioning.versions, date));
    }
    return derived.get(date);
  };
  if (versioning && request.olderVersions && request.types) {
    const { versions } = versioning;
    for (const date of versions.supported.filter((supported) => supported !== versions.latest)) {
      try {
        void request.types(deriveOlder(date) as OpenApiDocument);
      } catch {
        // Derived again below, where the failure is reported in its turn.
      }
    }
  }
  const latest = treeFiles({
    root: request.root,
    document,
    outDir: request.outDir,
    remakeCommand: request.remakeCommand,
    handlersDir: request.handlersDir,
    ...(request.types ? { types: request.types } : {}),
  });
  // Every older version's files too: the server judges a pinned request by its table. Started
  // before the latest's types are awaited, so their types can be made meanwhile.
  const older =
    versioning && request.olderVersions
      ? olderVersionFiles(request.root, versioning.versions, deriveOlder, request.types)
      : Promise.resolve(undefined);
  // The latest version's failure first, as when they were made one after the other.
  const [made, madeOlder] = await Promise.allSettled([latest, older]);
  if (made.status === 'rejected') throw made.reason;
  if (madeOlder.status === 'rejected') throw madeOlder.reason;
  const tree = made.value;
  const olderFiles = madeOlder.value;
  let { files, generated } = tree;
  if (olderFiles) {
    const entries = [...files];
    files = new Map([...entries.slice(0, generated), ...olderFiles, ...entries.slice(generated)]);
    generated += olderFiles.size;
  }
  return { files, generated, operations: tree.operations.length, report: tree.report };
}
