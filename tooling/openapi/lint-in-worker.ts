/**
 * Lints an OpenAPI file in a worker thread, so a caller can read and generate from the same file
 * meanwhile: on two cores `npm run generate` then takes about as long as its slower half instead
 * of the sum.
 */
import { Worker } from 'node:worker_threads';
import type { Located } from './load.js';

/**
 * The problems of `file` under the Redocly config at `configPath` (`null`: structural rules
 * only), located relative to `cwd`.
 *
 * @example const problems = await lintInWorker('spec/openapi.yaml', 'redocly.yaml', root);
 */
export function lintInWorker(
  file: string,
  configPath: string | null,
  cwd: string,
): Promise<Located[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./lint-worker.ts', import.meta.url), {
      workerData: { file, configPath, cwd },
    });
    worker.once('message', (problems: Located[]) => {
      resolve(problems);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the lint worker stopped with exit code ${code}`));
    });
  });
}
