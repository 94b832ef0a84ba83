/**
 * Regeneration after a save: every generated file and the handler stubs, as `npm run generate`
 * makes them. Runs in a worker thread (`regenerate-worker.ts`): TypeScript and
 * openapi-typescript stay loaded there between saves, and their heap stays out of the thread
 * that lints, whose garbage collections would otherwise walk it on every save (the lint is the
 * longest step of a save; see scripts/generate.ts for the same effect measured).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { reconcileHandlers } from '../../generators/handler-stubs.js';
import { generate } from '../../generators/index.js';

export interface RegenerateRequest {
  root: string;
  document: Record<string, unknown>;
  /** Repository-relative folder of the generated files. */
  outDir: string;
  remakeCommand: string;
  /** Absolute folder of the handler modules; null to leave handlers alone. */
  handlersDir: string | null;
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

export function regenerate(request: RegenerateRequest): RegenerateResult {
  let result: ReturnType<typeof generate>;
  try {
    result = generate(request.document, {
      outDir: request.outDir,
      remakeCommand: request.remakeCommand,
    });
  } catch (error) {
    const pointer = (error as { pointer?: unknown }).pointer;
    return {
      ok: false,
      pointer: typeof pointer === 'string' ? pointer : null,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  const files = new Map<string, string>();
  for (const [path, text] of result.files) files.set(resolve(request.root, path), text);
  const stubs: { operationId: string; file: string }[] = [];
  const dir = request.handlersDir;
  if (dir !== null) {
    const existing = new Map<string, string>();
    if (existsSync(dir)) {
      for (const name of readdirSync(dir)) {
        if (name.endsWith('.ts')) existing.set(name, readFileSync(join(dir, name), 'utf8'));
      }
    }
    const reconciled = reconcileHandlers(result.operations, existing);
    for (const [name, text] of reconciled.files) files.set(join(dir, name), text);
    for (const { operationId, file } of reconciled.report.added) {
      stubs.push({ operationId, file: join(dir, file) });
    }
  }
  return { ok: true, files, stubs };
}
