/**
 * `npm run bench:spec-check`: the spec change gate (`npm run spec:check`, whole process) against
 * `npm run generate` in the same run, interleaved: the issue's target is spec:check ≤ 8×
 * generate. spec:check runs its steps side by side with its caches (the drift check's content
 * cache, tsc's incremental build info) as a second run after an untimed-for-the-ratio first one
 * leaves them, which is reported as well; generate runs with an empty content cache (the whole
 * pipeline, as after a spec edit). Each step's time comes from spec:check's own table.
 * Results go to `bench/results/spec-check.md`; nothing is asserted.
 *
 *   npm run bench:spec-check [-- --runs 2 --base-ref REV]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { checked } from './support/options.js';
import { loadAverages, machine, ROOT, resultsFile, writeResults } from './support/report.js';
import { median } from './support/stats.js';

const TIME = '/usr/bin/time';

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

function main(): void {
  const { values } = parseOrExit({
    name: 'npm run bench:spec-check --',
    prefix: 'bench:spec-check',
    summary:
      'Times npm run spec:check against npm run generate in the same run; results to bench/results/spec-check.md.',
    options: {
      runs: { type: 'string', value: 'N', default: '2', description: 'Timed runs of each.' },
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
  const generate = ['npm', 'run', '--silent', 'generate', '--', '--check'];
  const first = measure(specCheck);
  process.stdout.write(`first spec:check ${first.seconds.toFixed(1)} s\n`);
  const checks: Sample[] = [];
  const generates: Sample[] = [];
  for (let run = 0; run < runs; run += 1) {
    checks.push(measure(specCheck));
    const cache = mkdtempSync(join(tmpdir(), 'bench-spec-check-cache-'));
    generates.push(measure(generate, { PATIENT_CARE_CACHE_DIR: cache }));
    rmSync(cache, { recursive: true, force: true });
    process.stdout.write(
      `  spec:check ${checks.at(-1)!.seconds.toFixed(1)} s, generate ${generates.at(-1)!.seconds.toFixed(1)} s\n`,
    );
  }
  const wall = median(checks.map((s) => s.seconds));
  const cpu = median(checks.map((s) => s.cpuSeconds));
  const generateWall = median(generates.map((s) => s.seconds));
  const generateCpu = median(generates.map((s) => s.cpuSeconds));
  const stepNames = [...(checks[0]?.steps.keys() ?? [])];
  const stepMedian = (name: string) => median(checks.map((s) => s.steps.get(name) ?? Number.NaN));
  const bySlowest = [...stepNames].sort((a, b) => stepMedian(b) - stepMedian(a));
  const lines = [
    '# spec:check benchmark',
    '',
    `Made by \`npm run bench:spec-check -- --runs ${runs} --base-ref ${values['base-ref']}\` (bench/spec-check.ts). Whole processes through npm, median of ${runs} interleaved runs; CPU is user + system of the process tree. spec:check runs its five steps side by side; its caches are warm from a first run (timed separately below). generate is \`npm run generate -- --check\` with an empty content cache: the whole pipeline, as after a spec edit.`,
    '',
    `Machine: ${machine()}; 1/5/15-min load average at end ${loadAverages()} (shared machine).`,
    '',
    '| | wall | CPU | ratio to generate (wall) | target |',
    '|---|---:|---:|---:|---|',
    `| \`npm run spec:check\` (caches warm) | ${wall.toFixed(1)} s | ${cpu.toFixed(1)} s | ${(wall / generateWall).toFixed(1)}× | ≤ 8× |`,
    `| \`npm run spec:check\`, first run of this bench | ${first.seconds.toFixed(1)} s | ${first.cpuSeconds.toFixed(1)} s | ${(first.seconds / generateWall).toFixed(1)}× | |`,
    `| \`npm run generate -- --check\` (empty cache) | ${generateWall.toFixed(2)} s | ${generateCpu.toFixed(2)} s | 1.0× | |`,
    '',
    `Steps (median wall, each measured inside spec:check while the others run): ${bySlowest.map((name) => `${name} ${stepMedian(name).toFixed(1)} s`).join(' · ')}. The gate takes about as long as its slowest step; the sum of the steps is ${bySlowest.reduce((sum, name) => sum + stepMedian(name), 0).toFixed(1)} s.`,
    '',
  ];
  writeResults(resultsFile('spec-check.md'), lines.join('\n'));
}

main();
