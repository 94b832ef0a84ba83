/**
 * Contract fuzzer: `npm run test:fuzz`. Starts the service on a fresh database with Prism in
 * front, sends property-based cases for every operation, prints the figure and each failure
 * as a curl command, and exits 1 on any failure.
 *
 * Environment: FUZZ_SEED (default 20261101), FUZZ_RUNS (cases per operation, default 200),
 * FUZZ_ONLY (comma-separated operationIds), FUZZ_PRISM (`off` skips Prism), FUZZ_PRISM_LOG (a
 * file to keep Prism's whole log in).
 */
import { integerOption, runCommand } from '../tooling/cli/command.js';
import { formatReport } from './lib/fuzz/report.js';
import { runFuzz } from './lib/fuzz/run.js';

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return integerOption(name, raw, { min: 0 });
}

await runCommand(
  {
    name: 'npm run test:fuzz --',
    prefix: 'test:fuzz',
    summary:
      'Contract fuzzer: starts the service on a fresh database with Prism in front, sends property-based cases for every operation, prints the figures and each failure as a curl command; exit 1 on any failure.',
    options: {},
    notes: [
      'Environment: FUZZ_SEED (20261101), FUZZ_RUNS (cases per operation, 200), FUZZ_ONLY',
      '(comma-separated operationIds), FUZZ_PRISM (off skips Prism), FUZZ_PRISM_LOG (a file for',
      "Prism's whole log).",
    ],
  },
  async () => {
    const seed = integer('FUZZ_SEED', 20261101);
    const runs = integer('FUZZ_RUNS', 200);
    const report = await runFuzz({
      root: process.cwd(),
      seed,
      runs,
      prism: process.env.FUZZ_PRISM?.trim().toLowerCase() !== 'off',
      only: (process.env.FUZZ_ONLY ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      ...(process.env.FUZZ_PRISM_LOG ? { prismLogFile: process.env.FUZZ_PRISM_LOG } : {}),
      log: (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(`${formatReport(report)}\n`);
    return report.failures.length > 0 ? 1 : 0;
  },
);
// Prism and the service are child processes: end now rather than wait for stray handles.
process.exit(process.exitCode ?? 0);
