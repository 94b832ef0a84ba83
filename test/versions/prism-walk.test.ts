/**
 * A walk of every operation pinned to 2026-11-01, proxied by Prism with the 2026-11-01
 * document: the fuzzer's valid and invalid cases for every operation, then for every
 * operation the refusals a pinned client meets before its route runs — no key and a bad key
 * (401), a key kind the operation refuses (403) and the rate limit (429) — each sent with
 * `PatientCare-Version: 2026-11-01`. Prism judges every answer against that version's
 * document: there must be no response violation. The document is the released file when the
 * repository holds one (`spec/released/2026-11-01.json`), else the one the modules derive.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pinned from '../../generated/versions/2026-11-01/routes.js';
import { deriveDocument, versions } from '../../server/versioning/index.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';
import { startPrism } from '../../tooling/fuzz/prism.js';
import { formatReport } from '../../tooling/fuzz/report.js';
import { runFuzz } from '../../tooling/fuzz/run.js';
import { startService } from '../../tooling/fuzz/service.js';

const VERSION = '2026-11-01';
const RELEASED = `spec/released/${VERSION}.json`;
let dir: string;
let documentFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prism-walk-'));
  if (existsSync(RELEASED)) documentFile = RELEASED;
  else {
    documentFile = join(dir, `${VERSION}.json`);
    const derived = deriveDocument(await bundleSpec('spec/openapi.yaml'), versions, VERSION);
    writeFileSync(documentFile, JSON.stringify(derived));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The pinned route table less the operations the document does not have: the released
 * 2026-11-01 contract predates the FHIR face, which is not versioned by PatientCare-Version
 * (FHIR clients and validators check it instead), so Prism could only answer "route not found".
 */
function releasedOperations(): typeof pinned {
  const document = JSON.parse(readFileSync(documentFile, 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const ids = new Set(
    Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation?.operationId),
    ),
  );
  return { ...pinned, routes: pinned.routes.filter((route) => ids.has(route.operationId)) };
}

/** A route's URL with a well-formed id in each path parameter. */
const urlOf = (url: string) => url.replace(/\{[^}]+\}/g, 'pat_01JD8A2B3C4D5E6F7G8H9J0K1M');

describe(`every operation pinned to ${VERSION}, behind Prism`, () => {
  it('the fuzzer walk: no Prism violation, no failure', async () => {
    const report = await runFuzz({
      root: process.cwd(),
      seed: 20261101,
      runs: Number(process.env.PRISM_WALK_RUNS ?? 5),
      prism: true,
      databases: ['sqlite'],
      version: { date: VERSION, table: releasedOperations(), document: documentFile },
    });
    console.log(formatReport(report, 20));
    expect(report.prism?.requests).toBeGreaterThan(0);
    expect(report.failures.map((f) => `${f.operationId} #${f.index}: ${f.problems[0]}`)).toEqual(
      [],
    );
  }, 600_000);

  it('401, 403 and 429 answers of every operation keep the document', async () => {
    const service = await startService(process.cwd(), {
      dialect: 'sqlite',
      env: { RATE_LIMIT_TEST: '2' },
    });
    const prism = await startPrism(process.cwd(), documentFile, service.baseUrl);
    try {
      const statuses = new Set<number>();
      const send = async (method: string, url: string, key?: string) => {
        const res = await fetch(`${prism.baseUrl}${url}`, {
          method,
          headers: {
            'PatientCare-Version': VERSION,
            ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
            ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        await res.text();
        expect(res.headers.get('patientcare-version'), `${method} ${url}`).toBe(VERSION);
        statuses.add(res.status);
        return res.status;
      };
      const guarded = pinned.routes.filter((route) => route.public !== true);
      for (const route of guarded) {
        const url = urlOf(route.url);
        expect(await send(route.method, url)).toBe(401);
        expect(await send(route.method, url, 'sk_test_notarealkey')).toBe(401);
        if (route.keyKinds !== null && !route.keyKinds.includes('publishable')) {
          // Paced below the publishable key's own limit of 2 a second.
          await new Promise((r) => setTimeout(r, 600));
          expect(await send(route.method, url, service.publishable)).toBe(403);
        }
        // The test-mode limit is 2 a second: a burst meets the 429.
        const burst = [];
        for (let i = 0; i < 6; i++) burst.push(await send(route.method, url, service.secret));
        expect(burst, `${route.method} ${route.url}`).toContain(429);
      }
      expect([...statuses]).toEqual(expect.arrayContaining([401, 403, 429]));
      // Let Prism's log catch up, then read every verdict.
      await new Promise((r) => setTimeout(r, 1000));
      const response = prism
        .requests()
        .flatMap((r) =>
          r.violations
            .filter((v) => v.side === 'response')
            .map((v) => `${r.method} ${r.path}: ${v.message}`),
        );
      expect(response).toEqual([]);
      expect(prism.requests().length).toBeGreaterThanOrEqual(guarded.length * 8);
    } finally {
      await prism.stop();
      await service.stop();
    }
  }, 600_000);
});
