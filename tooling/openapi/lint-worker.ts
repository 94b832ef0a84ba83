/**
 * Worker thread entry of {@link lintInWorker}: lints one file and posts its located problems.
 * Kept apart so the lint's heap (Redocly's walk, our rules) and the generator's (TypeScript's
 * compiler) never share a garbage collector.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lintConfig, lintFile, locateProblem } from './load.js';

const { file, configPath, cwd } = workerData as {
  file: string;
  configPath: string | null;
  cwd: string;
};
const problems = await lintFile(file, await lintConfig(configPath));
parentPort?.postMessage(problems.map((problem) => locateProblem(problem, cwd)));
