import type { BreakingOptions } from './breaking-step.js';
import { driftStep, lintStep, typesStep } from './command-steps.js';
import type { StepOutcome, StepResult } from './step-types.js';

export const STEP_NAMES = ['lint', 'drift', 'types', 'breaking', 'replay'] as const;
export type StepName = (typeof STEP_NAMES)[number];

/**
 * The steps named by `--only a,b` (undefined: all).
 * @throws Error naming the unknown steps.
 */
export function parseSteps(list: string | undefined): StepName[] | undefined {
  if (list === undefined) return undefined;
  const names = list.split(',').map((s) => s.trim());
  const unknown = names.filter((s) => !(STEP_NAMES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new Error(`unknown step(s) ${unknown.join(', ')}; steps: ${STEP_NAMES.join(', ')}`);
  }
  return names as StepName[];
}

export interface SpecCheckOptions extends BreakingOptions {
  /** Steps to run, in the fixed order; default all. */
  only?: readonly StepName[];
}

/**
 * Runs the spec change gate's steps side by side, each in isolation (a child process or a
 * function call), and times each; results come back in the fixed order. The steps are
 * independent: each reads the spec and the tree and writes nothing another reads. A crash in
 * one step is that step's failure, not the gate's. The in-process steps (breaking, replay) load
 * their modules when they start, after the child processes are on their way: replay imports the
 * whole service, a second or two of one core that the children would otherwise wait for. Their
 * times include that load.
 */
export async function runSpecCheck(opts: SpecCheckOptions): Promise<StepResult[]> {
  const steps: Record<StepName, () => StepOutcome | Promise<StepOutcome>> = {
    lint: () => lintStep(opts.root, opts.spec),
    drift: () => driftStep(opts.root),
    types: () => typesStep(opts.root),
    breaking: async () => (await import('./breaking-step.js')).runBreakingCheck(opts),
    replay: async () => (await import('./replay-step.js')).runReplayCheck(opts),
  };
  const chosen = STEP_NAMES.filter((name) => !opts.only || opts.only.includes(name));
  return Promise.all(
    chosen.map(async (name): Promise<StepResult> => {
      const started = performance.now();
      let outcome: StepOutcome;
      try {
        outcome = await steps[name]();
      } catch (err) {
        outcome = { status: 'fail', summary: 'step crashed', details: [(err as Error).message] };
      }
      return { name, ms: performance.now() - started, ...outcome };
    }),
  );
}

/** The summary table and the details of every step that did not pass. */
export function formatReport(results: readonly StepResult[], verbose = false): string {
  const rows = results.map((r) => [
    r.name,
    r.status.toUpperCase(),
    `${(r.ms / 1000).toFixed(1)} s`,
    r.summary,
  ]);
  const header = ['step', 'result', 'time', 'summary'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells.map((c, i) => (i < 3 ? c.padEnd(widths[i] ?? 0) : c)).join('  ');
  const out = ['spec:check', fmt(header), ...rows.map(fmt)];
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 2);
  if (slowest.length > 1) {
    // Side by side, so the gate takes about as long as its slowest step.
    out.push(
      `slowest: ${slowest.map((r) => `${r.name} ${(r.ms / 1000).toFixed(1)} s`).join(', ')} (steps run side by side)`,
    );
  }
  for (const r of results) {
    if (r.details.length === 0 || (r.status === 'pass' && !verbose && r.name !== 'breaking'))
      continue;
    out.push('', `── ${r.name} ──`, ...r.details);
  }
  const failed = results.filter((r) => r.status === 'fail').map((r) => r.name);
  out.push(
    '',
    failed.length === 0 ? 'spec:check passed' : `spec:check FAILED: ${failed.join(', ')}`,
  );
  return out.join('\n');
}
