/**
 * The contract fuzz at the latest version (2026-12-01, date-time appointment times) over the
 * operations the change touched, on both databases; `test/fuzz/contract-smoke.test.ts` runs
 * every operation pinned to 2026-11-01.
 */
import { expect, it } from 'vitest';
import { formatReport } from '../../tooling/fuzz/report.js';
import { runFuzz } from '../../tooling/fuzz/run.js';

const TOUCHED = [
  'createAppointment',
  'updateAppointment',
  'listAppointments',
  'retrieveAppointment',
  'listEvents',
  'retrieveEvent',
];

it('every answer keeps the 2026-12-01 contract for the operations the change touched', async () => {
  const report = await runFuzz({
    root: process.cwd(),
    seed: 20261201,
    runs: 15,
    prism: false,
    only: TOUCHED,
  });
  console.log(formatReport(report, 10));
  expect(report.operations.map((o) => o.operationId).sort()).toEqual([...TOUCHED].sort());
  for (const figure of report.operations)
    expect(figure.valid, figure.operationId).toBeGreaterThan(0);
  expect(report.failures.map((f) => `${f.operationId} #${f.index}: ${f.problems[0]}`)).toEqual([]);
}, 300_000);
