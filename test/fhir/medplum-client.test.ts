/**
 * A second FHIR client nobody here wrote, Medplum's `MedplumClient` (`@medplum/core`), against
 * the real service over HTTP on 127.0.0.1, on SQLite and on PostgreSQL: it pages a search of
 * three pages with `searchResourcePages` (which follows `next` links as absolute URLs),
 * returning every match once; reads; searches by patient; creates a Patient that reads back.
 * Authenticated with our bearer key through `setAccessToken`.
 */
import { MedplumClient } from '@medplum/core';
import type { Appointment, Patient } from '@medplum/fhirtypes';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

await describeEachDatabase('MedplumClient against the service', (dialect) => {
  const holder = useTestDb(dialect);
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = await buildApp({ db: holder.db, config: { rateLimits: { testRps: 10_000 } } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A client with a fresh test key, and a `/v1` POST with the same key. */
  async function client(): Promise<{
    medplum: MedplumClient;
    v1: (path: string, body: unknown) => Promise<{ id: string }>;
  }> {
    const { secret } = await makeKey(holder.db);
    const medplum = new MedplumClient({
      baseUrl: `${base}/`,
      fhirUrlPath: 'fhir/R4',
      fetch: (url: string | URL | Request, init?: RequestInit) => fetch(url, init),
      cacheTime: 0,
    });
    medplum.setAccessToken(secret);
    const v1 = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBe(200);
      return (await res.json()) as { id: string };
    };
    return { medplum, v1 };
  }

  const fhirId = (id: string) => id.replace('_', '-');

  it('pages a 3-page search with searchResourcePages, every match once', async () => {
    const { medplum, v1 } = await client();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(fhirId((await v1('/v1/patients', { name: { family: `Paged${i}` } })).id));
    }
    await v1('/v1/patients', { name: { family: 'Elsewhere' } });
    const pages: Patient[][] = [];
    for await (const page of medplum.searchResourcePages('Patient', {
      family: 'paged',
      _count: 3,
    })) {
      pages.push(page as Patient[]);
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    const ids = pages.flat().map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...made].sort());
    const bundle = await medplum.search('Patient', { family: 'paged', _count: 3 });
    expect(bundle.total).toBe(7);
    for (const entry of bundle.entry ?? []) {
      expect(entry.fullUrl).toBe(`${base}/fhir/R4/Patient/${entry.resource?.id}`);
    }
  });

  it('reads, searches by patient and creates a Patient', async () => {
    const { medplum, v1 } = await client();
    const ana = await v1('/v1/patients', { name: { family: 'Rivera', given: ['Ana'] } });
    const appointment = await v1('/v1/appointments', { patient: ana.id, practitioner: 'Dr. Lee' });

    const read = await medplum.readResource('Patient', fhirId(ana.id));
    expect(read).toMatchObject({
      id: fhirId(ana.id),
      name: [{ family: 'Rivera', given: ['Ana'] }],
    });

    const theirs = (await medplum.searchResources('Appointment', {
      patient: `Patient/${fhirId(ana.id)}`,
    })) as Appointment[];
    expect(theirs.map((a) => a.id)).toEqual([fhirId(appointment.id)]);

    const created = await medplum.createResource<Patient>({
      resourceType: 'Patient',
      name: [{ family: 'Okafor', given: ['Chidi'] }],
      birthDate: '1990-01-02',
    });
    expect(created.id).toMatch(/^pat-/);
    const back = await medplum.readResource('Patient', created.id as string);
    expect(back).toMatchObject({ name: [{ family: 'Okafor', given: ['Chidi'] }] });
    const found = await medplum.searchResources('Patient', { family: 'okafor' });
    expect(found.map((p) => p.id)).toEqual([created.id]);
  });
});
