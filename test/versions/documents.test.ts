/**
 * The served documents per version: `/openapi.json?version=2026-11-01` is the 2026-11-01
 * contract as released (`spec/released/2026-11-01.json`) with the service's `servers`, `/openapi.json` is the
 * latest, `.yaml` the same documents, an unknown version a 400 listing the supported ones, and
 * `/docs` offers a link per version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { diffSpecs } from '../../tooling/breaking/diff-specs.js';
import { prepareDocs, preparedSpec } from '../../tooling/docs/prepare.js';
import { readReleased } from '../../tooling/spec-gate/released.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { STATED_BOUNDS } from './support/stated-bounds.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ docs: { load: () => prepareDocs('spec/openapi.yaml') } });
});
afterAll(async () => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });
/** The 2026-11-01 contract as released, prepared like the service's. */
async function releasedPrepared(): Promise<unknown> {
  return preparedSpec(readReleased('.', '2026-11-01')).spec;
}

describe('GET /openapi.json and /openapi.yaml per version', () => {
  it('?version=2026-11-01 keeps the released 2026-11-01 contract, with this service as server', async () => {
    const released = await releasedPrepared();
    for (const url of ['/openapi.json?version=2026-11-01', '/openapi.yaml?version=2026-11-01']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      const { servers, ...document } = parse(res.body);
      expect(servers).toHaveLength(1);
      expect(document.info.version).toBe('2026-11-01');
      // Compatible additions since the release reach every version; nothing released breaks.
      const breaking = diffSpecs(released as OpenApiDocument, document).filter((c) => c.breaking);
      expect(breaking.filter((c) => !STATED_BOUNDS.test(c.pointer))).toEqual([]);
      // Each version's document states every bound its validation applies.
      const create = document.components.schemas.AppointmentCreateParams.properties;
      expect(create.start.maximum).toBe(253402300799);
      expect(create.start.minimum).toBe(0);
      // The nodes the 2026-12-01 change edits read as released; the documentation of the other
      // fields reaches every version, like any compatible addition.
      const times = (spec: unknown) =>
        (
          spec as {
            components: { schemas: { Appointment: { properties: Record<string, unknown> } } };
          }
        ).components.schemas.Appointment.properties;
      for (const field of ['start', 'end']) {
        expect(times(document)[field], field).toEqual(times(released)[field]);
      }
      // PatientCare-Actor (issue 43) was added to every keyed operation without a new version:
      // clients pinned to 2026-11-01 see it and may send it.
      expect(
        document.paths['/v1/patients/{id}'].get.parameters.map((p: { $ref?: string }) => p.$ref),
      ).toContain('#/components/parameters/PatientCareActor');
      expect(document.components.parameters.PatientCareActor.name).toBe('PatientCare-Actor');
    }
  });

  it('without a version, or with the latest, it is the latest', async () => {
    for (const url of ['/openapi.json', '/openapi.json?version=2026-12-01', '/openapi.yaml']) {
      const res = await get(url);
      expect(parse(res.body).info.version, url).toBe('2026-12-01');
    }
  });

  it('each version has its own ETag', async () => {
    const latest = await get('/openapi.json');
    const old = await get('/openapi.json?version=2026-11-01');
    expect(latest.headers.etag).not.toBe(old.headers.etag);
  });

  it('an unknown version is a 400 in the error envelope listing the supported ones', async () => {
    const res = await get('/openapi.json?version=2030-01-01');
    expect(res.statusCode).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.error).toMatchObject({ code: 'parameter_invalid', param: 'version' });
    expect(body.error.message).toContain('2026-12-01, 2026-11-01');
  });
});

describe('/docs version picker', () => {
  it('links every version; ?version= shows that version and links its documents', async () => {
    const latest = (await get('/docs')).body;
    expect(latest).toContain('href="/docs" aria-current="page">2026-12-01 (latest)</a>');
    expect(latest).toContain('href="/docs?version=2026-11-01">2026-11-01</a>');
    expect(latest).toContain('data-spec-url="/docs/reference.json"');
    const old = (await get('/docs?version=2026-11-01')).body;
    expect(old).toContain('data-spec-url="/docs/reference.json?version=2026-11-01"');
    expect(old).toContain('href="/docs?version=2026-11-01" aria-current="page"');
    expect(old).toContain('href="/openapi.yaml?version=2026-11-01"');
  });
});
