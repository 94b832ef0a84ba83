/**
 * `types.ts` made in a worker thread (`types-worker.ts`) for `npm run generate`: its two heavy
 * parts, loading openapi-typescript with TypeScript's 9 MB compiler and printing each version's
 * types, run on the second core while the main thread loads Redocly, checks the document and
 * makes the routes, the clients and the stubs. The thread starts when generate starts building
 * (a run answered from the content cache never starts it), so its loading overlaps the check;
 * the latest document is sent as soon as it is bundled, the older versions' as they are derived.
 *
 * Used for our spec only, and only when a core is free (`typesThreadWanted`); BENCHMARKS.md
 * issue 44 has the figures and the load.
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { DocumentError } from '../openapi/errors.js';
import type { TypesMaker } from './tree.js';
import type { TypesAnswer, TypesFinish, TypesJob, TypesWorkerData } from './types-worker.js';

/**
 * Whether to make the types in a thread: `PATIENT_CARE_TYPES_THREAD=on` or `off` decides;
 * otherwise only when a core is likely free: the 1-minute load average below the number of
 * cores (a serial run such as `npm run bench:generate` itself keeps it near 1). The thread
 * costs ~0.1-0.2 s of CPU (a second isolate, its own start-up and heap): with a core to spare
 * it took ~0.45 s off the run after a spec edit (1.21-1.25 s against 1.66-1.72 s, same-run
 * pairs), on a machine already busy (load 3-7) it only added that CPU (BENCHMARKS.md issue
 * 44). The text is the same either way.
 */
export function typesThreadWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env.PATIENT_CARE_TYPES_THREAD;
  if (setting === 'on') return true;
  if (setting === 'off') return false;
  const cores = availableParallelism();
  return cores > 1 && (loadavg()[0] ?? 0) < cores;
}

export interface TypesThread {
  /** Sends `document` (once per document object) and gives its text when the thread answers. */
  types: TypesMaker;
  /**
   * Stops the thread; pending answers reject. The thread writes its piece cache first (after the
   * documents already sent), or is ended after {@link FINISH_WAIT_MS}.
   */
  close(): Promise<void>;
}

/** How long `close` lets the thread write its piece cache (~10 ms on our spec) before ending it. */
export const FINISH_WAIT_MS = 5_000;

/**
 * Starts the thread. It runs the TypeScript sources through the same loader as this process
 * (a worker inherits `--import`). With `piecesFolder` (generate's cache folder) its pieces of
 * `types.ts` are read from and written to that folder; without, they live as long as the thread.
 *
 * @example const thread = startTypesThread({ piecesFolder: cacheFolder(root) }); try { await treeFiles({ ...request, types: thread.types }) } finally { await thread.close() }
 */
export function startTypesThread(options: TypesWorkerData = {}): TypesThread {
  const worker = new Worker(new URL('./types-worker.ts', import.meta.url), {
    workerData: options satisfies TypesWorkerData,
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const waiting = new Map<
    number,
    { resolve: (text: string) => void; reject: (e: Error) => void }
  >();
  const sent = new WeakMap<object, Promise<string>>();
  let next = 0;
  let stopped: Error | undefined;
  const stop = (error: Error) => {
    stopped ??= error;
    for (const waiter of waiting.values()) waiter.reject(stopped);
    waiting.clear();
  };
  worker.on('message', (answer: TypesAnswer) => {
    const waiter = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (!waiter) return;
    if (answer.ok) waiter.resolve(answer.text);
    else if (answer.pointer !== null)
      waiter.reject(new DocumentError(answer.pointer, answer.message));
    else waiter.reject(new Error(answer.message));
  });
  worker.on('error', (error) => stop(new Error(`the types thread failed: ${error.message}`)));
  worker.on('exit', (code) => stop(new Error(`the types thread stopped (exit ${code})`)));
  const types: TypesMaker = (document: OpenApiDocument) => {
    const known = sent.get(document);
    if (known) return known;
    const pending = new Promise<string>((resolve, reject) => {
      if (stopped) {
        reject(stopped);
        return;
      }
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, document } satisfies TypesJob);
    });
    // A document sent early (before the check) may never be asked for again.
    pending.catch(() => undefined);
    sent.set(document, pending);
    return pending;
  };
  return {
    types,
    async close() {
      const first = stopped === undefined;
      stop(new Error('the types thread was closed'));
      if (first) worker.postMessage({ finish: true } satisfies TypesFinish);
      const timer = setTimeout(() => void worker.terminate(), FINISH_WAIT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
