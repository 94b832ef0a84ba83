import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { StepOutcome } from './step-types.js';

/** Runs a command as its own child process; output is kept only for the failure report. */
export function runCommand(root: string, cmd: string, args: string[]): StepOutcome {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
  if (r.error) return { status: 'fail', summary: `cannot run ${cmd}`, details: [r.error.message] };
  const output = `${r.stdout}${r.stderr}`
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('npm warn'));
  if (r.status === 0) return { status: 'pass', summary: `${cmd} ${args.join(' ')}`, details: [] };
  return {
    status: 'fail',
    summary: `${cmd} ${args.join(' ')} exited ${r.status}`,
    details: output.slice(-40),
  };
}

/**
 * `npm run lint:spec` on `spec` (relative to `root`): Redocly with the project's rules, and
 * validity against the official OpenAPI 3.0 schema, each finding as `file:line:col`.
 */
export function lintStep(root: string, spec: string): StepOutcome {
  return runCommand(root, 'npm', ['run', '--silent', 'lint:spec', '--', spec]);
}

/** The generator's drift check; "not available" until `scripts/generate.ts` exists. */
export function driftStep(root: string): StepOutcome {
  if (!existsSync(join(root, 'scripts/generate.ts'))) {
    return { status: 'skip', summary: 'not available (scripts/generate.ts missing)', details: [] };
  }
  return runCommand(root, 'npm', ['run', '--silent', 'generate', '--', '--check']);
}

function listTs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
}

/** This repository's TypeScript compiler, whatever `root` is (a temp copy has no node_modules). */
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * The project's type check (`npm run typecheck`: `tsc --noEmit -p tsconfig.json`): the generated
 * code and everything written against it, so a spec change that leaves the hand-written server
 * or client uncompilable fails here. Compiling `generated/` alone would pass it (12 s for the
 * whole project on the 2-core machine).
 */
export function typesStep(root: string): StepOutcome {
  const files = listTs(join(root, 'generated'));
  if (files.length === 0)
    return { status: 'skip', summary: 'not available (no generated/*.ts)', details: [] };
  if (!existsSync(join(root, 'tsconfig.json')))
    return { status: 'skip', summary: 'not available (no tsconfig.json)', details: [] };
  const outcome = runCommand(root, process.execPath, [TSC, '--noEmit', '-p', 'tsconfig.json']);
  return {
    ...outcome,
    summary: `tsc -p tsconfig.json: ${files.length} generated file(s) and the code using them${outcome.status === 'fail' ? ' failed' : ''}`,
  };
}
