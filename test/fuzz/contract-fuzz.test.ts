/**
 * The full contract fuzz (integration tier): every operation of the route table, FUZZ_RUNS cases
 * each (default 200), fixed seed (FUZZ_SEED), against the real service started as `npm start`
 * would, with Prism's proxy in front judging every request and answer against the spec. The
 * same run as `npm run test:fuzz`, which prints each failure as a curl command. Every case goes
 * to SQLite and (where it answers) PostgreSQL, and their answers must agree.
 */
import { describe, expect, it } from 'vitest';
import { routes as allRoutes } from '../../generated/routes.js';
import type { Dialect } from '../../server/db/types.js';
import { NOT_YET_FUZZED } from '../../tooling/fuzz/not-yet-fuzzed.js';
import { formatReport } from '../../tooling/fuzz/report.js';
import { runFuzz } from '../../tooling/fuzz/run.js';
import { POSTGRES_URL, postgresAvailable } from '../support/databases.js';

// What the fuzzer runs: every operation but those it does not cover yet (listed with why).
const routes = allRoutes.filter((r) => !NOT_YET_FUZZED.has(r.operationId));

const runs = Number(process.env.FUZZ_RUNS ?? 200);
const seed = Number(process.env.FUZZ_SEED ?? 20261101);

describe('contract fuzz (full run, behind Prism)', () => {
  it(`sends ${runs} cases per operation and every answer keeps the contract`, async () => {
    // Both databases, so their answers are compared; PostgreSQL only where it answers.
    const databases: Dialect[] = (await postgresAvailable()) ? ['sqlite', 'postgres'] : ['sqlite'];
    const report = await runFuzz({
      root: process.cwd(),
      seed,
      runs,
      prism: true,
      databases,
      postgresUrl: POSTGRES_URL,
    });
    console.log(formatReport(report, 20));
    expect(report.operations.map((o) => o.operationId)).toEqual(routes.map((r) => r.operationId));
    for (const figure of report.operations) {
      expect(figure.cases, figure.operationId).toBe(runs);
      // Both kinds must be exercised, or the run checks less than it claims.
      expect(figure.valid, figure.operationId).toBeGreaterThan(0);
      // Public probes (`security: []`, no parameters or body) have nothing to break.
      const open = routes.find((r) => r.operationId === figure.operationId)?.public === true;
      if (!open) expect(figure.invalid, figure.operationId).toBeGreaterThan(0);
    }
    expect(report.prism?.requests).toBeGreaterThan(runs * routes.length * 0.8);
    expect(report.databases.map((d) => d.dialect)).toEqual(databases);
    expect(report.mismatches).toBe(0);
    expect(report.failures.map((f) => `${f.operationId} #${f.index}: ${f.problems[0]}`)).toEqual(
      [],
    );
  }, 1_800_000);
});
