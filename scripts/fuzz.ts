/**
 * Contract fuzzer: `npm run test:fuzz`. Starts the service on a fresh database with Prism in
 * front, sends property-based cases for every operation, prints the figure and each failure
 * as a curl command, and exits 1 on any failure.
 *
 * Environment: FUZZ_SEED (default 20261101), FUZZ_RUNS (cases per operation, default 200),
 * FUZZ_ONLY (comma-separated operationIds), FUZZ_PRISM (`off` skips Prism), FUZZ_PRISM_LOG (a
 * file to keep Prism's whole log in), FUZZ_DATABASES (default `sqlite,postgres`: every case
 * goes to each, and their answers must agree), FUZZ_POSTGRES_URL (default TEST_DATABASE_URL,
 * else postgres://127.0.0.1:5432/test; a fresh schema is made there and dropped after).
 */
import type { Dialect } from '../server/db/types.js';
import { formatReport } from '../tooling/fuzz/report.js';
import { runFuzz } from '../tooling/fuzz/run.js';

function integer(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) {
    process.stderr.write(`${name} must be an integer\n`);
    process.exit(2);
  }
  return value;
}

function databases(): Dialect[] {
  const listed = (process.env.FUZZ_DATABASES ?? 'sqlite,postgres')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = listed.find((d) => d !== 'sqlite' && d !== 'postgres');
  if (bad !== undefined || listed.length === 0) {
    process.stderr.write('FUZZ_DATABASES must list sqlite and/or postgres\n');
    process.exit(2);
  }
  return listed as Dialect[];
}

const postgresUrl = process.env.FUZZ_POSTGRES_URL ?? process.env.TEST_DATABASE_URL;
const report = await runFuzz({
  databases: databases(),
  ...(postgresUrl ? { postgresUrl } : {}),
  root: process.cwd(),
  seed: integer('FUZZ_SEED', 20261101),
  runs: integer('FUZZ_RUNS', 200),
  prism: process.env.FUZZ_PRISM?.trim().toLowerCase() !== 'off',
  only: (process.env.FUZZ_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
  ...(process.env.FUZZ_PRISM_LOG ? { prismLogFile: process.env.FUZZ_PRISM_LOG } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${formatReport(report)}\n`);
process.exit(report.failures.length > 0 ? 1 : 0);
