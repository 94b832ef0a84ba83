/**
 * `npm run bench`: runs every `bench/*.ts` one after another (never in parallel: they would
 * measure each other), each writing its `bench/results/*.md`, then prints where the results
 * are. `BENCHMARKS.md` summarises those files against the issues' targets.
 *
 *   npm run bench [-- generate server]   (names limit the run to those scripts)
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { exitOnFailure, parseOrExit, UsageError } from '../tooling/cli/command.js';

const root = join(import.meta.dirname, '..');
const benchDir = join(root, 'bench');
const available = readdirSync(benchDir)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.slice(0, -'.ts'.length))
  .sort();
const { positionals } = parseOrExit({
  name: 'npm run bench --',
  prefix: 'bench',
  summary:
    'Runs every bench/*.ts one after another (never in parallel), each writing its bench/results/*.md.',
  options: {},
  positionals: `[${available.join('|')}]…`,
});
const unknown = positionals.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  exitOnFailure('bench')(
    new UsageError(`unknown bench ${unknown.join(', ')}; benches: ${available.join(', ')}`),
  );
}
const wanted = new Set(positionals);
const scripts = available.filter((name) => wanted.size === 0 || wanted.has(name));

const failed: string[] = [];
for (const name of scripts) {
  process.stdout.write(`\n== bench/${name}.ts ==\n`);
  const started = performance.now();
  // Node itself, not a shell: the same on every platform, and no quoting to get wrong.
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, `${name}.ts`)], {
    cwd: root,
    stdio: 'inherit',
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (result.status !== 0) failed.push(name);
  process.stdout.write(
    `== bench/${name}.ts ${result.status === 0 ? 'done' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds} s ==\n`,
  );
}
process.stdout.write(`\nResults: bench/results/*.md; summary against the targets: BENCHMARKS.md\n`);
if (failed.length > 0) {
  process.stderr.write(`bench scripts that failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
