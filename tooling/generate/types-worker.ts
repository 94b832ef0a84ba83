/**
 * The worker thread of `types-thread.ts`: loads openapi-typescript and TypeScript and reads the
 * piece cache (tooling/generate/pieces-cache.ts) as it starts (while the main thread loads
 * Redocly and checks the document), then answers each document it is sent with its `types.ts`
 * text made from cached pieces (generators/types-pieces.ts), or with why openapi-typescript
 * refused it. The older versions' documents reuse the latest's pieces; the pieces used are
 * written back after the documents sent together are answered, and when the thread is told
 * to finish.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { generateTypesPieced } from '../../generators/types-pieces.js';
import { openPieceCache } from './pieces-cache.js';

/** A document to type; `id` pairs the answer with it. */
export interface TypesJob {
  id: number;
  document: OpenApiDocument;
}

/** The last message: write the piece cache, then end the thread. */
export interface TypesFinish {
  finish: true;
}

export type TypesAnswer =
  | { id: number; ok: true; text: string }
  /** `pointer` is set when the failure was a `DocumentError`. */
  | { id: number; ok: false; message: string; pointer: string | null };

/** What the thread is started with. */
export interface TypesWorkerData {
  /** The folder of the piece cache file; in memory only when absent. */
  piecesFolder?: string;
}

const pieces = openPieceCache((workerData as TypesWorkerData | undefined)?.piecesFolder);
let saving = false;

parentPort?.on('message', (message: TypesJob | TypesFinish) => {
  if ('finish' in message) {
    pieces.save(); // nothing left to write, unless the finish came before the scheduled save
    parentPort?.close();
    return;
  }
  parentPort?.postMessage(answer(message));
  // Written once the documents already queued are answered, while the main thread still works,
  // so that closing the thread seldom waits for the write.
  if (!saving) {
    saving = true;
    setImmediate(() => {
      saving = false;
      pieces.save();
    });
  }
});

function answer({ id, document }: TypesJob): TypesAnswer {
  try {
    // The message is this thread's own copy of the document: no second copy is needed.
    return { id, ok: true, text: generateTypesPieced(document, pieces) };
  } catch (error) {
    const pointer = (error as { pointer?: unknown }).pointer;
    return {
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      pointer:
        error instanceof Error && error.name === 'DocumentError' && typeof pointer === 'string'
          ? pointer
          : null,
    };
  }
}
