/**
 * `npm start`: builds when `build/` is missing or older than the sources, then runs the built
 * service (`build/server/main.js`). Plain Node (type stripping, only `node:` imports), so it
 * needs no dev tool unless a build is due. A production install runs
 * `MALLOC_ARENA_MAX=2 node --max-semi-space-size=16 build/server/main.js` directly (the flag
 * and the variable, which package.json's `start` sets before node starts: see README).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');
const MAIN = join(ROOT, 'build', 'server', 'main.js');
const STAMP = join(ROOT, 'build', 'stamp.json');
// What the build reads: a change to any of them makes the build stale.
const INPUTS = [
  'server',
  'generated',
  'spec',
  'tooling',
  'scripts/check-node.mjs',
  'package-lock.json',
];

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

function buildDue(): string | undefined {
  if (!existsSync(MAIN) || !existsSync(STAMP)) return 'no build yet';
  const built = statSync(STAMP).mtimeMs;
  const changed = INPUTS.find((input) => newestChange(join(ROOT, input)) > built);
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(
    'Usage: npm start\n\nBuilds into build/ when it is missing or stale, then starts the service (settings: environment variables, see README.md; WORKERS=N runs N processes on one PostgreSQL database).\n',
  );
  process.exit(0);
}

const unknown = process.argv.slice(2);
if (unknown.length > 0) {
  process.stderr.write(`start: unknown argument "${unknown[0]}" (see --help)\n`);
  process.exit(2);
}

// WORKERS=N: N service processes (server/cluster.ts), forked by the built entry itself (so a
// production install's `node build/server/main.js` does the same); checked before any build.
const cluster = (await import(
  pathToFileURL(join(ROOT, 'server', 'cluster.ts')).href
)) as typeof import('../server/cluster.js');
const workers = cluster.workerCount(process.env);
if ('error' in workers) {
  process.stderr.write(`patient-care: ${workers.error}\n`);
  process.exit(2);
}

const reason = buildDue();
if (reason !== undefined) {
  process.stdout.write(`start: building (${reason})\n`);
  const build = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build.ts')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  // A stop asked for while building stops the build too: no child outlives `npm start`.
  const forward = (signal: NodeJS.Signals) => build.kill(signal);
  process.on('SIGTERM', forward);
  process.on('SIGINT', forward);
  const [status] = (await once(build, 'exit')) as [number | null];
  process.off('SIGTERM', forward);
  process.off('SIGINT', forward);
  if (status !== 0) process.exit(status ?? 1);
}
await import(pathToFileURL(MAIN).href);
