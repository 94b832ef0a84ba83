import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { StepOutcome } from './step-types.js';

/**
 * Runs a command as its own child process; output is kept only for the failure report.
 * Asynchronous, so the gate runs its command steps side by side.
 */
export async function runCommand(root: string, cmd: string, args: string[]): Promise<StepOutcome> {
  const r = await new Promise<{ status: number | null; output: string; error?: Error }>(
    (resolveRun) => {
      const chunks: Buffer[] = [];
      const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.once('error', (error) => resolveRun({ status: null, output: '', error }));
      child.once('close', (status) =>
        resolveRun({ status, output: Buffer.concat(chunks).toString('utf8') }),
      );
    },
  );
  if (r.error) return { status: 'fail', summary: `cannot run ${cmd}`, details: [r.error.message] };
  const output = r.output.split('\n').filter((l) => l.trim() !== '' && !l.includes('npm warn'));
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
export function lintStep(root: string, spec: string): Promise<StepOutcome> {
  return runCommand(root, 'npm', ['run', '--silent', 'lint:spec', '--', spec]);
}

/** The generator's drift check; "not available" until `scripts/generate.ts` exists. */
export async function driftStep(root: string): Promise<StepOutcome> {
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

/** The gate's own TypeScript project: generated/ and the code written against it. */
export const SPEC_CHECK_TSCONFIG = 'tsconfig.spec-check.json';

/**
 * The type check of the contract's users (`tsc -p tsconfig.spec-check.json`): generated/ and
 * the service, client and contract types written against it, with everything they import, so a
 * spec change that leaves the hand-written server or client uncompilable fails here. Compiling
 * generated/ alone would pass it. Tests, benches and tooling are not in it: `npm run typecheck`
 * (the fast tier) checks the whole repository, 1,900 files against this project's 540.
 * Incremental: TypeScript keeps what it learnt of each file, by content hash, in
 * `node_modules/.cache/patient-care/spec-check/`, and checks again only the files that changed
 * and those whose imports changed shape, with the same verdict as a full check. The project sets
 * removeComments, so a description edit (a doc comment in generated/types.ts) leaves the shape
 * alone and the importers are not checked again.
 */
export async function typesStep(root: string): Promise<StepOutcome> {
  const files = listTs(join(root, 'generated'));
  if (files.length === 0)
    return { status: 'skip', summary: 'not available (no generated/*.ts)', details: [] };
  if (!existsSync(join(root, SPEC_CHECK_TSCONFIG)))
    return { status: 'skip', summary: `not available (no ${SPEC_CHECK_TSCONFIG})`, details: [] };
  const cache = join(root, 'node_modules', '.cache', 'patient-care', 'spec-check');
  mkdirSync(cache, { recursive: true });
  const outcome = await runCommand(root, process.execPath, [
    TSC,
    '--noEmit',
    '-p',
    SPEC_CHECK_TSCONFIG,
    '--incremental',
    '--tsBuildInfoFile',
    join(cache, 'tsconfig.tsbuildinfo'),
  ]);
  return {
    ...outcome,
    summary: `tsc -p ${SPEC_CHECK_TSCONFIG} (incremental): ${files.length} generated file(s) and the code using them${outcome.status === 'fail' ? ' failed' : ''}`,
  };
}
