/**
 * Prism, proxying a client pinned to a deprecated version (fixture: 2026-11-01 marked
 * deprecated, as in deprecation.test.ts) with the document the service serves for that
 * version, finds no violation in answers carrying `Deprecation`, `Sunset` and `Link`: the spec
 * declares them and the values match their schemas. The control run proves Prism reads those
 * headers: with the `Deprecation` pattern made unmatchable, the same answers are violations.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import { startPrism } from '../../tooling/fuzz/prism.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';

vi.mock('../../spec/versions/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../spec/versions/index.js')>();
  return {
    versionChanges: real.versionChanges.map((change) =>
      change.date === '2026-11-01'
        ? { ...change, deprecated: { since: '2027-01-01', sunset: '2027-06-01' } }
        : change,
    ),
  };
});

let t: TestApp;
let upstream: string;
let secret: string;
let served: { components: { headers: Record<string, { schema: { pattern?: string } }> } };
const dir = mkdtempSync(join(tmpdir(), 'deprecation-prism-'));

beforeAll(async () => {
  t = await buildTestApp({ docs: { load: () => prepareDocs('spec/openapi.yaml') } });
  secret = (await makeKey(t.db)).secret;
  upstream = await t.app.listen({ port: 0, host: '127.0.0.1' });
  served = JSON.parse(
    (await t.app.inject({ method: 'GET', url: '/openapi.json?version=2026-11-01' })).body,
  );
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends the pinned calls through a Prism proxy for `document`; the answers and violations. */
async function throughPrism(document: unknown) {
  const file = join(dir, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(document));
  const prism = await startPrism(process.cwd(), file, upstream);
  try {
    const headers = { authorization: `Bearer ${secret}`, 'patientcare-version': '2026-11-01' };
    const answers = [];
    for (const path of ['/v1/patients?limit=1', '/v1/patients/pat_01JD7X5K8M9N2P3Q4R5S6T7V8W'])
      answers.push(await fetch(`${prism.baseUrl}${path}`, { headers }));
    // Prism logs a request's violations after answering it.
    await new Promise((r) => setTimeout(r, 500));
    return { answers, requests: prism.requests() };
  } finally {
    await prism.stop();
  }
}

it('no violation in the deprecated version’s answers; Prism does check the headers', async () => {
  const clean = await throughPrism(served);
  expect(clean.answers.map((a) => a.status)).toEqual([200, 404]);
  for (const answer of clean.answers) {
    expect(answer.headers.get('deprecation')).toBe(`@${Date.parse('2027-01-01T00:00:00Z') / 1000}`);
    expect(answer.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
  }
  expect(clean.requests).toHaveLength(2);
  expect(clean.requests.flatMap((r) => r.violations)).toEqual([]);

  const control = structuredClone(served);
  const deprecation = control.components.headers.Deprecation;
  expect(deprecation?.schema.pattern).toBeDefined();
  if (deprecation) deprecation.schema.pattern = '^never$';
  const flagged = await throughPrism(control);
  const violations = flagged.requests.flatMap((r) => r.violations.map((v) => v.message));
  expect(violations.length).toBeGreaterThanOrEqual(2);
  for (const message of violations) expect(message.toLowerCase()).toContain('deprecation');
}, 120_000);
