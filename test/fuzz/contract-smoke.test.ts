/**
 * The small contract fuzz of the fast tier: every operation of the route table, FUZZ_SMOKE_RUNS
 * cases each (default 15), fixed seed, against the real service started as `npm start` would,
 * each answer checked by our own contract checks. Prism's second opinion is left to the full
 * run of the integration tier (contract-fuzz.test.ts): loading the spec into Prism alone took
 * 7-8 s of this file's 15-19 s. Written for 2026-11-01, it runs pinned to it (every request
 * sends the version, every answer is checked against the 2026-11-01 document).
 *
 * `FUZZ_SEEDS` (comma-separated) runs it once per seed: `npm test` uses the one fixed seed,
 * `.ci/run` adds more, one of them new on every run (printed, so a failure can be replayed
 * with `FUZZ_SEEDS=<seed>`): a fixed seed sends the same cases on every run, and a new one
 * reaches inputs it never does (issue 31 asked for several).
 */
import { describe, expect, it } from 'vitest';
import * as pinned from '../../generated/versions/2026-11-01/routes.js';
import { NOT_YET_FUZZED } from '../../tooling/fuzz/not-yet-fuzzed.js';
import { formatReport } from '../../tooling/fuzz/report.js';
import { runFuzz } from '../../tooling/fuzz/run.js';

// What the fuzzer runs: every operation but those it does not cover yet (listed with why).
const routes = pinned.routes.filter((r) => !NOT_YET_FUZZED.has(r.operationId));

const runs = Number(process.env.FUZZ_SMOKE_RUNS ?? 15);
const seeds = (process.env.FUZZ_SEEDS ?? process.env.FUZZ_SEED ?? '20261101')
  .split(',')
  .map((text) => Number(text.trim()));

describe('contract fuzz (small run)', () => {
  it.each(seeds)(
    `seed %i: sends ${runs} cases per operation and every answer keeps the contract`,
    async (seed) => {
      const report = await runFuzz({
        root: process.cwd(),
        seed,
        runs,
        prism: false,
        version: { date: '2026-11-01', table: pinned },
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
      expect(report.failures.map((f) => `${f.operationId} #${f.index}: ${f.problems[0]}`)).toEqual(
        [],
      );
    },
    120_000,
  );
});
