/**
 * `npm run bench:spec-check`: the spec change gate (`npm run spec:check`, whole process) against
 * `npm run generate` in the same run, interleaved: the issue's target is spec:check ≤ 8×
 * generate, for an unchanged tree and after a spec edit. Each run times, in turn: spec:check
 * with its caches (the drift check's content cache, tsc's incremental build info) warm and
 * nothing changed; `npm run generate -- --check` with an empty content cache (the whole
 * pipeline); then a harmless edit (one schema property's description in `spec/openapi.yaml`
 * gets a numbered suffix), `npm run generate` to apply it, and spec:check after that edit. The
 * spec as it was is written back and generated/ remade when the bench ends or is interrupted.
 * Before the timed runs: a first spec:check, and one edit and its spec:check (the first edit
 * after a cold build info re-checks the importers of generated/ once; later ones no longer
 * do), both reported on their own. Each step's time comes from spec:check's own table.
 * Results go to `bench/results/spec-check.md`; nothing is asserted.
 *
 *   npm run bench:spec-check [-- --runs 3 --base-ref REV]
 *
 * CPU (user + system of the whole process tree) is reported beside wall time, and its ratio
 * too: on the shared 2-core machine the wall ratio moves with other people's load.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { checked } from './support/options.js';
import { loadAverages, machine, ROOT, resultsFile, writeResults } from './support/report.js';
import { median } from './support/stats.js';

const TIME = '/usr/bin/time';
const SPEC = join(ROOT, 'spec', 'openapi.yaml');
const TYPES = join(ROOT, 'generated', 'types.ts');
const EDIT_MARK = 'Edited by bench:spec-check';

interface Sample {
  seconds: number;
  cpuSeconds: number;
  /** spec:check only: step → seconds, from its table. */
  steps: Map<string, number>;
}

function measure(command: string[], env: Record<string, string> = {}): Sample {
  const result = spawnSync(TIME, ['-f', '%e %U %S', ...command], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    throw new Error(
      `${command.join(' ')} failed (exit ${result.status}):\n${result.stdout.slice(-3000)}${result.stderr.slice(-2000)}`,
    );
  }
  const [seconds, user, system] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  const steps = new Map<string, number>();
  for (const match of result.stdout.matchAll(/^(\w+) +(?:PASS|FAIL|SKIP) +(\d+\.\d) s/gm)) {
    steps.set(match[1]!, Number(match[2]));
  }
  return { seconds: seconds!, cpuSeconds: user! + system!, steps };
}

/**
 * `spec` with the first plain one-line `description:` under `components.schemas` (a schema or
 * property description) ending in `EDIT_MARK n.`: a change to the documentation only, the kind
 * of edit an owner makes most often. Whatever an earlier edit appended is replaced.
 */
function describedDifferently(spec: string, n: number): string {
  const components = spec.indexOf('\n  schemas:', spec.indexOf('\ncomponents:'));
  if (components < 0) throw new Error('spec/openapi.yaml has no components.schemas section');
  const line = /^( +description: )([A-Za-z`][^\n#:]*?)(?: Edited by bench:spec-check \d+\.)?$/m;
  const tail = spec.slice(components);
  const match = line.exec(tail);
  if (match === null) throw new Error('no one-line description under components.schemas to edit');
  const edited = `${match[1]}${match[2]} ${EDIT_MARK} ${n}.`;
  return (
    spec.slice(0, components + match.index) +
    edited +
    spec.slice(components + match.index + match[0].length)
  );
}

function main(): void {
  const { values } = parseOrExit({
    name: 'npm run bench:spec-check --',
    prefix: 'bench:spec-check',
    summary:
      'Times npm run spec:check against npm run generate in the same run; results to bench/results/spec-check.md.',
    options: {
      runs: { type: 'string', value: 'N', default: '3', description: 'Timed runs of each.' },
      'base-ref': {
        type: 'string',
        value: 'REV',
        default: 'HEAD',
        description: "spec:check's base revision (default HEAD: nothing breaking to report).",
      },
    },
  });
  const runs = checked('bench:spec-check', () => integerOption('runs', values.runs, { min: 1 }));
  const specCheck = [
    'npm',
    'run',
    '--silent',
    'spec:check',
    '--',
    '--base-ref',
    values['base-ref'],
  ];
  const generateCheck = ['npm', 'run', '--silent', 'generate', '--', '--check'];
  const generateWrite = ['npm', 'run', '--silent', 'generate'];
  const original = readFileSync(SPEC, 'utf8');
  let edits = 0;
  /** Applies the next description edit to the spec and times the generate that writes it. */
  const edit = (): Sample => {
    edits += 1;
    writeFileSync(SPEC, describedDifferently(readFileSync(SPEC, 'utf8'), edits));
    const sample = measure(generateWrite);
    if (!readFileSync(TYPES, 'utf8').includes(`${EDIT_MARK} ${edits}.`)) {
      throw new Error('the description edit did not reach generated/types.ts');
    }
    return sample;
  };
  const restore = () => {
    if (edits === 0) return;
    writeFileSync(SPEC, original);
    spawnSync('npm', ['run', '--silent', 'generate'], { cwd: ROOT, stdio: 'ignore' });
    edits = 0;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      restore();
      process.exit(130);
    });
  }
  const checks: Sample[] = [];
  const generates: Sample[] = [];
  const edited: Sample[] = [];
  const applies: Sample[] = [];
  let first: Sample;
  let firstEdited: Sample;
  try {
    first = measure(specCheck);
    process.stdout.write(`first spec:check ${first.seconds.toFixed(1)} s\n`);
    edit();
    firstEdited = measure(specCheck);
    process.stdout.write(`first spec:check after an edit ${firstEdited.seconds.toFixed(1)} s\n`);
    for (let run = 0; run < runs; run += 1) {
      checks.push(measure(specCheck));
      const cache = mkdtempSync(join(tmpdir(), 'bench-spec-check-cache-'));
      generates.push(measure(generateCheck, { PATIENT_CARE_CACHE_DIR: cache }));
      rmSync(cache, { recursive: true, force: true });
      applies.push(edit());
      edited.push(measure(specCheck));
      process.stdout.write(
        `  spec:check ${checks.at(-1)!.seconds.toFixed(1)} s, generate ${generates.at(-1)!.seconds.toFixed(1)} s, ` +
          `generate (edit) ${applies.at(-1)!.seconds.toFixed(1)} s, spec:check after the edit ${edited.at(-1)!.seconds.toFixed(1)} s\n`,
      );
    }
  } finally {
    restore();
  }
  const med = (samples: readonly Sample[], of: (s: Sample) => number) => median(samples.map(of));
  const wall = (s: Sample) => s.seconds;
  const cpu = (s: Sample) => s.cpuSeconds;
  const generateWall = med(generates, wall);
  const generateCpu = med(generates, cpu);
  const row = (label: string, samples: readonly Sample[], target = '') => {
    const w = med(samples, wall);
    const c = med(samples, cpu);
    return `| ${label} | ${w.toFixed(1)} s | ${c.toFixed(1)} s | ${(w / generateWall).toFixed(1)}× | ${(c / generateCpu).toFixed(1)}× | ${target} |`;
  };
  const stepsOf = (samples: readonly Sample[]) => {
    const names = [...(samples[0]?.steps.keys() ?? [])];
    const stepMedian = (name: string) =>
      median(samples.map((s) => s.steps.get(name) ?? Number.NaN));
    const bySlowest = [...names].sort((a, b) => stepMedian(b) - stepMedian(a));
    return `${bySlowest.map((name) => `${name} ${stepMedian(name).toFixed(1)} s`).join(' · ')} (sum ${bySlowest.reduce((sum, name) => sum + stepMedian(name), 0).toFixed(1)} s)`;
  };
  const lines = [
    '# spec:check benchmark',
    '',
    `Made by \`npm run bench:spec-check -- --runs ${runs} --base-ref ${values['base-ref']}\` (bench/spec-check.ts). Whole processes through npm, median of ${runs} interleaved runs; CPU is user + system of the process tree. spec:check runs its five steps side by side. "Caches warm": nothing changed since its last run. "After an edit": one schema property's description in spec/openapi.yaml changed, \`npm run generate\` run (timed on its own row), then spec:check. generate is \`npm run generate -- --check\` with an empty content cache: the whole pipeline. The spec is restored and generated/ remade at the end.`,
    '',
    `Machine: ${machine()}; 1/5/15-min load average at end ${loadAverages()} (shared machine).`,
    '',
    '| | wall | CPU | ÷ generate (wall) | ÷ generate (CPU) | target (wall) |',
    '|---|---:|---:|---:|---:|---|',
    row('`npm run spec:check` after an edit', edited, '≤ 8×'),
    row('`npm run spec:check` (caches warm, nothing changed)', checks, '≤ 8×'),
    row('`npm run spec:check`, first edit of this bench (once)', [firstEdited], ''),
    row('`npm run spec:check`, first run of this bench (once)', [first], ''),
    row('`npm run generate` applying the edit (content cache warm)', applies, ''),
    `| \`npm run generate -- --check\` (empty cache) | ${generateWall.toFixed(2)} s | ${generateCpu.toFixed(2)} s | 1.0× | 1.0× | |`,
    '',
    "Steps (median wall, each measured inside spec:check while the others run, from the gate's start to when it saw the step end: the in-process steps (breaking, replay) keep its thread busy, so a child process's end may be seen late and these are upper bounds):",
    '',
    `- after an edit: ${stepsOf(edited)}`,
    `- caches warm: ${stepsOf(checks)}`,
    '',
  ];
  writeResults(resultsFile('spec-check.md'), lines.join('\n'));
}

main();
