/**
 * Regeneration after a save: every generated file and the handler stubs, as `npm run generate`
 * makes them. Runs in a worker thread (`regenerate-worker.ts`): TypeScript and
 * openapi-typescript stay loaded there between saves, and their heap stays out of the thread
 * that lints, whose garbage collections would otherwise walk it on every save (the lint is the
 * longest step of a save; see scripts/generate.ts for the same effect measured).
 */
import { join } from 'node:path';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import { treeFiles } from '../generate/tree.js';
import { olderVersionFiles } from '../generate/versions.js';
import { freshVersionChanges } from '../openapi/version-list.js';

export interface RegenerateRequest {
  root: string;
  document: Record<string, unknown>;
  /** Repository-relative folder of the generated files. */
  outDir: string;
  remakeCommand: string;
  /** Absolute folder of the handler modules; null to leave handlers alone. */
  handlersDir: string | null;
  /** Our spec: also every older dated version, from the modules as they are now. */
  versions?: boolean;
}

export type RegenerateResult =
  | {
      ok: true;
      /** Absolute path → text, for every file that should exist. */
      files: Map<string, string>;
      /** Stubs added: operationId and absolute file. */
      stubs: { operationId: string; file: string }[];
    }
  | { ok: false; pointer: string | null; message: string };

/** The tree for `request` (tooling/generate/tree.ts), or why the generators refused it. */
export async function regenerate(request: RegenerateRequest): Promise<RegenerateResult> {
  try {
    const { files, report } = await treeFiles(request);
    if (request.versions === true) {
      const registry = createRegistry(
        await freshVersionChanges(join(request.root, 'spec/versions/index.ts')),
      );
      const older = await olderVersionFiles(request.root, registry, (date) =>
        deriveDocument(request.document, registry, date),
      );
      for (const [path, text] of older) files.set(path, text);
    }
    return { ok: true, files, stubs: report?.added ?? [] };
  } catch (error) {
    const pointer = (error as { pointer?: unknown }).pointer;
    return {
      ok: false,
      pointer: typeof pointer === 'string' ? pointer : null,
      message: error instanceof Error ? error.message : String(error),
    };
  }
}
