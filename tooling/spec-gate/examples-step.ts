import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { worktreeReader } from './git-base.js';
import { loadSpec } from './load-spec.js';
import type { StepOutcome } from './step-types.js';

type ValidateExamples = (doc: unknown) => Array<{ pointer: string; message: string }>;

/**
 * Validates every example against its schema with the spec author's
 * `scripts/lib/spec-examples.ts` (`validateExamples(document)`); "not available" until it exists.
 * Loaded by URL so the type check does not depend on a file another helper owns.
 */
export async function examplesStep(root: string, spec: string): Promise<StepOutcome> {
  const file = join(root, 'scripts/lib/spec-examples.ts');
  if (!existsSync(file))
    return {
      status: 'skip',
      summary: 'not available (scripts/lib/spec-examples.ts missing)',
      details: [],
    };
  try {
    const mod = (await import(pathToFileURL(file).href)) as { validateExamples?: ValidateExamples };
    if (typeof mod.validateExamples !== 'function') {
      return { status: 'skip', summary: 'not available (no validateExamples export)', details: [] };
    }
    const problems = await mod.validateExamples(loadSpec(spec, worktreeReader(root)));
    if (problems.length === 0)
      return { status: 'pass', summary: 'every example matches its schema', details: [] };
    return {
      status: 'fail',
      summary: `${problems.length} example(s) do not match their schema`,
      details: problems.map((p) => `${p.pointer}: ${p.message}`),
    };
  } catch (err) {
    return {
      status: 'fail',
      summary: 'example validation crashed',
      details: [(err as Error).message],
    };
  }
}
