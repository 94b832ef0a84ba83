/**
 * The guard of docs/design.md#validation-cost: for every operation of every served version,
 * the worst bodies its own schemas allow (`tooling/fuzz/worst-bodies.ts`: every array at
 * `maxItems` with duplicate items and far beyond it, every string at `maxLength` and far
 * beyond, bodies nested as deep as 1 MiB allows, 74,000 unknown keys, FHIR search forms with
 * 74,000 names) are each answered — never with a 5xx — within a CPU-time budget, on SQLite
 * and on PostgreSQL.
 *
 * The budget, CPU_BUDGET_MS = 1,000 ms of this process's CPU time per request (user +
 * system, `process.cpuUsage`, so time other processes take from the machine does not count):
 * - Measured with the bounded validation (2 cores, load average 19 from other suites): the
 *   costliest of 366 requests took 432 ms (createPatient, arrays nested 445,644 deep, since
 *   refused by the depth scan before JSON.parse), the next 265 ms, the median 9 ms. The budget
 *   leaves 2.3x over the worst seen on a loaded machine.
 * - What it must catch: quadratic validation. With the bounds check switched off (Ajv with
 *   `allErrors` over `uniqueItems`, as before issue 42), the 37,433 numbers sent as `scopes`
 *   here took 3,321 ms of CPU and this test failed on them; with it, about 5 ms.
 * - Why a quarter of the limit for the per-place values: validation is linear in them (the
 *   bench runs them at the full limit: `npm run bench:hostile`), a quadratic cost already
 *   shows at this size, and it keeps the file's two databases within about a minute on a quiet
 *   machine. Bodies that depend only on the whole body's size (nesting, keys, forms) use most
 *   of the full 1 MiB.
 * An older version's operation whose schemas are the latest's (most of 2026-11-01's) is sent
 * once.
 */
import { beforeAll, expect, it } from 'vitest';
import { CURRENT_API_VERSION, DEFAULT_HTTP_CONFIG } from '../../server/config.js';
import {
  servedTables,
  type WorstOperation,
  type WorstRequest,
  worstOperations,
  worstRequests,
} from '../../tooling/fuzz/worst-bodies.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

const CPU_BUDGET_MS = 1_000;
const BODY_LIMIT = DEFAULT_HTTP_CONFIG.bodyLimit;
const PLACE_BYTES = Math.floor(BODY_LIMIT / 4);

const LATEST: string = CURRENT_API_VERSION;
const ALL = worstOperations(await servedTables(LATEST));
const requestsOf = (c: WorstOperation): WorstRequest[] =>
  worstRequests(c.route, c.registry, { bodyLimit: BODY_LIMIT, placeBytes: PLACE_BYTES });

it('covers every operation with a body, in every version, with worst bodies', () => {
  const operations = new Set(ALL.map((c) => c.route.operationId));
  for (const name of ['createEphemeralKey', 'createPatient', 'submitClaim', 'createFhirPatient']) {
    expect(operations).toContain(name);
  }
  expect(new Set(ALL.map((c) => c.version)).size).toBeGreaterThan(1);
  const ephemeral = ALL.find((c) => c.route.operationId === 'createEphemeralKey');
  const labels = ephemeral === undefined ? [] : requestsOf(ephemeral).map((r) => r.label);
  expect(labels.some((l) => l.startsWith('scopes: ') && l.endsWith('distinct numbers'))).toBe(true);
  expect(labels.some((l) => l.includes('nested'))).toBe(true);
});

await describeEachDatabase('worst bodies', (dialect) => {
  const ctx = useTestDb(dialect);
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ db: ctx.db });
    return () => t.close();
  });

  it.each(ALL.map((c) => [c.version, c.route.operationId, c] as const))(
    '%s %s: every worst body answered, no 5xx, within the CPU budget',
    async (_version, _operationId, c) => {
      const keys = {
        secret: (await makeKey(ctx.db)).secret,
        publishable: (await makeKey(ctx.db, { kind: 'publishable' })).secret,
      };
      const over: string[] = [];
      for (const r of requestsOf(c)) {
        const before = process.cpuUsage();
        const res = await t.app.inject({
          method: r.method as 'POST',
          url: r.url,
          headers: {
            authorization: `Bearer ${keys[r.key]}`,
            'content-type': r.contentType,
            'patientcare-version': c.version,
          },
          payload: r.payload,
        });
        const used = process.cpuUsage(before);
        const ms = (used.user + used.system) / 1000;
        if (res.statusCode >= 500) over.push(`${r.label}: ${res.statusCode}`);
        if (ms > CPU_BUDGET_MS) over.push(`${r.label}: ${ms.toFixed(0)} ms of CPU`);
      }
      expect(over).toEqual([]);
    },
  );
});
