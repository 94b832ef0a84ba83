/**
 * The worker thread of `types-thread.ts`: loads openapi-typescript and TypeScript as it starts
 * (while the main thread loads Redocly and checks the document), then answers each document it
 * is sent with its `types.ts` text, or with why `generateTypes` refused it.
 */
import { parentPort } from 'node:worker_threads';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { generateTypesConsuming } from '../../generators/types.js';

/** A document to type; `id` pairs the answer with it. */
export interface TypesJob {
  id: number;
  document: OpenApiDocument;
}

export type TypesAnswer =
  | { id: number; ok: true; text: string }
  /** `pointer` is set when the failure was a `DocumentError`. */
  | { id: number; ok: false; message: string; pointer: string | null };

parentPort?.on('message', ({ id, document }: TypesJob) => {
  let answer: TypesAnswer;
  try {
    // The message is this thread's own copy of the document: no second copy is needed.
    answer = { id, ok: true, text: generateTypesConsuming(document) };
  } catch (error) {
    const pointer = (error as { pointer?: unknown }).pointer;
    answer = {
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      pointer:
        error instanceof Error && error.name === 'DocumentError' && typeof pointer === 'string'
          ? pointer
          : null,
    };
  }
  parentPort?.postMessage(answer);
});
