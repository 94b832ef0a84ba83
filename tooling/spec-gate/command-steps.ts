import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
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

/** Redocly lint with the project's rules (`npm run lint:spec`). */
export function lintStep(root: string): StepOutcome {
  return runCommand(root, 'npm', ['run', '--silent', 'lint:spec']);
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

/**
 * Type-checks `generated/` alone (and what it imports) with the project's compiler options.
 * The narrow config is written under `node_modules/.cache` so `@types` resolve as usual and
 * nothing lands in the work tree.
 */
export function typesStep(root: string): StepOutcome {
  const files = listTs(join(root, 'generated'));
  if (files.length === 0)
    return { status: 'skip', summary: 'not available (no generated/*.ts)', details: [] };
  const dir = join(root, 'node_modules/.cache/spec-check');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'tsconfig.generated.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      include: [],
      files: files.map((f) => join(root, 'generated', f)),
    }),
  );
  const tsc = join(root, 'node_modules/.bin/tsc');
  const outcome = runCommand(root, existsSync(tsc) ? tsc : 'npx', [
    ...(existsSync(tsc) ? [] : ['tsc']),
    '--noEmit',
    '-p',
    config,
  ]);
  return {
    ...outcome,
    summary: `tsc on ${files.length} generated file(s)${outcome.status === 'fail' ? ' failed' : ''}`,
  };
}
