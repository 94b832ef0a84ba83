/**
 * The small default run of the contract fuzzer inside `npm test`: every operation of the route
 * table, FUZZ_SMOKE_RUNS cases each (default 15), fixed seed, against the real service started
 * as `npm start` would, on SQLite and (when it answers) PostgreSQL, each with Prism's proxy in
 * front as in `npm run test:fuzz`, and the two databases' answers compared. Measured before
 * the second database: about 15 s with Prism (7-8 s of it Prism loading the spec), 7 s
 * without; with both databases 70 s on a loaded 2-core machine. Prism's verdicts were the
 * same on every run once its two log problems were handled (see `prism-proxy.ts`), so it
 * stays in. FUZZ_SMOKE_PRISM=off leaves it out.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '../../generated/routes.js';
import type { Dialect } from '../../server/db/types.js';
import { formatReport } from '../../tooling/fuzz/report.js';
import { runFuzz } from '../../tooling/fuzz/run.js';
import { POSTGRES_URL, postgresAvailable } from '../support/databases.js';

const runs = Number(process.env.FUZZ_SMOKE_RUNS ?? 15);
const seed = Number(process.env.FUZZ_SEED ?? 20261101);

describe('contract fuzz (small run)', () => {
  it(`sends ${runs} cases per operation and every answer keeps the contract`, async () => {
    const prism = process.env.FUZZ_SMOKE_PRISM?.trim().toLowerCase() !== 'off';
    // Both databases, so their answers are compared; PostgreSQL only where it answers.
    const databases: Dialect[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
    const report = await runFuzz({
      root: process.cwd(),
      seed,
      runs,
      prism,
      databases,
      postgresUrl: POSTGRES_URL,
    });
    console.log(formatReport(report, 20));
    expect(report.operations.map((o) => o.operationId)).toEqual(routes.map((r) => r.operationId));
    for (const figure of report.operations) {
      expect(figure.cases, figure.operationId).toBe(runs);
      // Both kinds must be exercised, or the run checks less than it claims.
      expect(figure.valid, figure.operationId).toBeGreaterThan(0);
      expect(figure.invalid, figure.operationId).toBeGreaterThan(0);
    }
    if (prism) expect(report.prism?.requests).toBeGreaterThan(runs * routes.length * 0.6);
    expect(report.databases.map((d) => d.dialect)).toEqual(databases);
    expect(report.mismatches).toBe(0);
    expect(report.failures.map((f) => `${f.operationId} #${f.index}: ${f.problems[0]}`)).toEqual(
      [],
    );
  }, 240_000);
});
