/**
 * Retiring a version, with a fixture: the 2026-11-01 module marked deprecated (since 2027-01-01,
 * sunset 2027-06-01) in place of the real list. Answers served in it, whether by header or by
 * the account's pin, carry `Deprecation` (RFC 9745 date, read by the `structured-headers`
 * parser), `Sunset` (HTTP-date) and a `Link` with both relations; the latest version's do not;
 * the docs picker and the served 2026-11-01 document say so. The spec declares the headers on
 * every response that has `PatientCare-Version` (test/http/cors.test.ts: browsers may read them).
 */
import { parseItem } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deprecationHeaders } from '../../server/http/deprecation.js';
import { setAccountApiVersion } from '../../server/keys/account.js';
import { createRegistry } from '../../server/versioning/registry.js';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { versionChanges } from '../../spec/versions/index.js';
import { prepareDocs } from '../../tooling/docs/prepare.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';
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

const SINCE = Date.parse('2027-01-01T00:00:00Z') / 1000;

let t: TestApp;
let secret: string;
beforeAll(async () => {
  t = await buildTestApp({ docs: { load: () => prepareDocs('spec/openapi.yaml') } });
  secret = (await makeKey(t.db)).secret;
});
afterAll(async () => t.close());

const call = (url: string, version?: string) =>
  t.app.inject({
    method: 'GET',
    url,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(version === undefined ? {} : { 'patientcare-version': version }),
    },
  });

function expectRetiring(headers: Record<string, unknown>, what: string) {
  const [date] = parseItem(String(headers.deprecation));
  expect(date, what).toBeInstanceOf(Date);
  expect((date as Date).getTime() / 1000, what).toBe(SINCE);
  expect(headers.sunset, what).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
  expect(new Date(String(headers.sunset)).toISOString(), what).toBe('2027-06-01T00:00:00.000Z');
  expect(String(headers.link), what).toMatch(/^<\/docs#tag\/Versioning>; rel="deprecation sunset"/);
}

describe('answers in a deprecated version carry Deprecation and Sunset', () => {
  it('pinned by the header: success and error answers alike', async () => {
    const ok = await call('/v1/patients?limit=1', '2026-11-01');
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['patientcare-version']).toBe('2026-11-01');
    expectRetiring(ok.headers, '200');
    const missing = await call('/v1/patients/pat_01JD7X5K8M9N2P3Q4R5S6T7V8W', '2026-11-01');
    expect(missing.statusCode).toBe(404);
    expectRetiring(missing.headers, '404');
    const bad = await call('/v1/patients?limit=1000', '2026-11-01');
    expect(bad.statusCode).toBe(400);
    expectRetiring(bad.headers, '400');
  });

  it('the latest version, and public routes, carry none', async () => {
    for (const res of [await call('/v1/patients?limit=1', '2026-12-01'), await call('/healthz')]) {
      expect(res.headers.deprecation).toBeUndefined();
      expect(res.headers.sunset).toBeUndefined();
      expect(res.headers.link).toBeUndefined();
    }
  });

  it('pinned by the account (no header): the pin decides, and so do the headers', async () => {
    await setAccountApiVersion(t.db, '2026-11-01', Date.now());
    // The pin is cached for a second; wait it out rather than reach into the cache.
    await new Promise((r) => setTimeout(r, 1100));
    const res = await call('/v1/appointments?limit=1');
    expect(res.headers['patientcare-version']).toBe('2026-11-01');
    expectRetiring(res.headers, 'account pin');
    await setAccountApiVersion(t.db, '2026-12-01', Date.now());
  });
});

describe('the docs say so', () => {
  it('the picker marks the version with its sunset; its document opens with the notice', async () => {
    const page = (await t.app.inject({ method: 'GET', url: '/docs' })).body;
    expect(page).toContain('>2026-11-01 (deprecated, sunset 2027-06-01)</a>');
    expect(page).toContain('>2026-12-01 (latest)</a>');
    const old = JSON.parse(
      (await t.app.inject({ method: 'GET', url: '/openapi.json?version=2026-11-01' })).body,
    );
    expect(old.info.description).toMatch(
      /^\*\*Version 2026-11-01 is deprecated\*\* \(since 2027-01-01\).*2027-06-01/,
    );
    const latest = JSON.parse((await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    expect(latest.info.description).not.toContain('is deprecated');
  });
});

describe('the spec declares the headers', () => {
  it('on every response that declares PatientCare-Version, from the shared components', async () => {
    const spec = (await bundleSpec('spec/openapi.yaml')) as unknown as {
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
      components: { responses: Record<string, unknown> };
    };
    const responses = [
      ...Object.values(spec.paths).flatMap((item) =>
        Object.values(item).flatMap((op) => Object.values(op.responses ?? {})),
      ),
      ...Object.values(spec.components.responses),
    ] as { headers?: Record<string, { $ref?: string }> }[];
    const versioned = responses.filter((r) => r.headers?.['PatientCare-Version'] !== undefined);
    expect(versioned.length).toBeGreaterThan(20);
    for (const response of versioned)
      for (const name of ['Deprecation', 'Sunset', 'Link'])
        expect(response.headers?.[name]?.$ref).toBe(`#/components/headers/${name}`);
  });
});

describe('a module that cannot be retired as written is refused when the app is built', () => {
  const [first, latest]: readonly (VersionChange | undefined)[] = versionChanges;
  const retire = (since: string, sunset: string, which = first!) =>
    deprecationHeaders(
      createRegistry(
        [first!, latest!].map((c) => (c === which ? { ...c, deprecated: { since, sunset } } : c)),
      ),
    );
  it.each([
    ['the latest version', () => retire('2027-01-01', '2027-06-01', latest), /is the latest/],
    ['a sunset before the deprecation', () => retire('2027-06-01', '2027-01-01'), /before/],
    ['a date that is not one', () => retire('2027-02-30', '2027-06-01'), /not a YYYY-MM-DD/],
  ])('%s', (_name, build, message) => {
    expect(build).toThrow(message);
  });

  it('no deprecated module: no headers to add, nothing per request', () => {
    expect(deprecationHeaders(createRegistry([first!, { ...latest! }])).size).toBe(1);
    const { deprecated: _gone, ...plain } = first!;
    expect(deprecationHeaders(createRegistry([plain, latest!])).size).toBe(0);
  });
});
