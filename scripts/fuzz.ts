/**
 * Contract fuzzer: `npm run test:fuzz`. Starts the service on a fresh database of each kind with
 * Prism in front, sends property-based cases for every operation, prints the figure and each failure
 * as a curl command, and exits 1 on any failure.
 *
 * Environment: FUZZ_SEED (default 20261101), FUZZ_RUNS (cases per operation, default 200),
 * FUZZ_ONLY (comma-separated operationIds), FUZZ_PRISM (`off` skips Prism), FUZZ_PRISM_LOG (a
 * file to keep Prism's whole log in), FUZZ_DATABASES (default `sqlite,postgres`: every case
 * goes to each, and their answers must agree), FUZZ_POSTGRES_URL (default TEST_DATABASE_URL,
 * else postgres://127.0.0.1:5432/test; a fresh schema is made there and dropped after).
 */
import type { Dialect } from '../server/db/types.js';
import { integerOption, runCommand, UsageError } from '../tooling/cli/command.js';
import { formatReport } from '../tooling/fuzz/report.js';
import { runFuzz } from '../tooling/fuzz/run.js';

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return integerOption(name, raw, { min: 0 });
}

function databases(): Dialect[] {
  const listed = (process.env.FUZZ_DATABASES ?? 'sqlite,postgres')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = listed.find((d) => d !== 'sqlite' && d !== 'postgres');
  if (bad !== undefined || listed.length === 0) {
    throw new UsageError('FUZZ_DATABASES must list sqlite and/or postgres');
  }
  return listed as Dialect[];
}

await runCommand(
  {
    name: 'npm run test:fuzz --',
    prefix: 'test:fuzz',
    summary:
      'Contract fuzzer: starts the service on a fresh SQLite and PostgreSQL database with Prism in front, sends property-based cases for every operation to both, compares their answers, prints the figures and each failure as a curl command; exit 1 on any failure.',
    options: {},
    notes: [
      'Environment: FUZZ_SEED (20261101), FUZZ_RUNS (cases per operation, 200), FUZZ_ONLY',
      '(comma-separated operationIds), FUZZ_PRISM (off skips Prism), FUZZ_PRISM_LOG (a file for',
      "Prism's whole log), FUZZ_DATABASES (sqlite,postgres), FUZZ_POSTGRES_URL.",
    ],
  },
  async () => {
    const seed = integer('FUZZ_SEED', 20261101);
    const runs = integer('FUZZ_RUNS', 200);
    const dialects = databases();
    const postgresUrl = process.env.FUZZ_POSTGRES_URL ?? process.env.TEST_DATABASE_URL;
    const report = await runFuzz({
      databases: dialects,
      ...(postgresUrl ? { postgresUrl } : {}),
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
