/**
 * A FHIR client nobody here wrote (`fhir-kit-client`) against the real service over HTTP on
 * 127.0.0.1, on SQLite and on PostgreSQL: what is written through `/v1` reads and searches
 * back through `/fhir/R4` (paging with the client's own `nextPage`, references resolved with
 * its `resolve`), and what the client creates reads back through `/v1`. Errors reach the
 * client as OperationOutcomes with their status.
 */
import type { FastifyInstance } from 'fastify';
import { Client } from 'fhir-kit-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read FHIR JSON fields freely.
type Json = Record<string, any>;

await describeEachDatabase('fhir-kit-client against the service', (dialect) => {
  // Tables are emptied before each test (keys included), so each test makes its key.
  const holder = useTestDb(dialect);
  let app: FastifyInstance;
  let base: string;
  let secret: string;
  let client: Client;

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

  /** A `/v1` call with the test key, in the latest version (the account's pin). */
  async function v1(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBe(200);
    return (await res.json()) as Json;
  }

  const fhirId = (id: string) => id.replace('_', '-');

  it('reads the CapabilityStatement', async () => {
    secret = (await makeKey(holder.db)).secret;
    client = new Client({ baseUrl: `${base}/fhir/R4`, bearerToken: secret });
    const statement = (await client.capabilityStatement()) as Json;
    expect(statement.fhirVersion).toBe('4.0.1');
  });

  it('written through /v1, read, searched, paged and resolved through FHIR', async () => {
    secret = (await makeKey(holder.db)).secret;
    client = new Client({ baseUrl: `${base}/fhir/R4`, bearerToken: secret });
    const ana = await v1('POST', '/v1/patients', {
      name: { family: 'Rivera', given: ['Ana'] },
      birth_date: '1987-04-12',
      gender: 'female',
      identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: `mrn-${dialect}` }],
    });
    const rivas = await v1('POST', '/v1/patients', { name: { family: 'Rivas' } });
    const appointment = await v1('POST', '/v1/appointments', {
      patient: ana.id,
      practitioner: 'Dr. Lee',
    });

    const read = (await client.read({ resourceType: 'Patient', id: fhirId(ana.id) })) as Json;
    expect(read).toMatchObject({
      id: fhirId(ana.id),
      birthDate: '1987-04-12',
      name: [{ family: 'Rivera', given: ['Ana'] }],
    });

    const first = (await client.search({
      resourceType: 'Patient',
      searchParams: { family: 'riv', _count: 1 },
    })) as Json;
    expect(first.entry.map((e: Json) => e.resource.id)).toEqual([fhirId(rivas.id)]);
    const second = (await client.nextPage({ bundle: first as never })) as Json;
    expect(second.entry.map((e: Json) => e.resource.id)).toEqual([fhirId(ana.id)]);

    const byMrn = (await client.search({
      resourceType: 'Patient',
      searchParams: { identifier: `https://clinic.example/mrn|mrn-${dialect}`, gender: 'female' },
    })) as Json;
    expect(byMrn.entry).toHaveLength(1);

    const fhirAppointment = (await client.read({
      resourceType: 'Appointment',
      id: fhirId(appointment.id),
    })) as Json;
    const patient = (await client.resolve({
      reference: fhirAppointment.participant[0].actor.reference,
    })) as Json;
    expect(patient.id).toBe(fhirId(ana.id));
    const theirs = (await client.search({
      resourceType: 'Appointment',
      searchParams: { patient: `Patient/${fhirId(ana.id)}` },
    })) as Json;
    expect(theirs.entry.map((e: Json) => e.resource.id)).toEqual([fhirId(appointment.id)]);

    // The date and status searches, and the claim status sets, on this database's SQL.
    const start = Math.floor(Date.now() / 1000) + 86_400;
    // Since 2026-12-01 (the latest version) /v1 appointment times are RFC 3339 date-times.
    const dateTime = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
    const timed = await v1('POST', '/v1/appointments', {
      patient: ana.id,
      practitioner: 'Dr. Lee',
      start: dateTime(start),
      end: dateTime(start + 1800),
    });
    const day = new Date(start * 1000).toISOString().slice(0, 10);
    const onDay = (await client.search({
      resourceType: 'Appointment',
      searchParams: { date: `ge${day}`, status: 'pending' },
    })) as Json;
    expect(onDay.entry.map((e: Json) => e.resource.id)).toEqual([fhirId(timed.id)]);
    const claim = await v1('POST', '/v1/claims', {
      patient: ana.id,
      billing_type: 'self_pay',
      type: 'professional',
      billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
      diagnoses: [{ sequence: 1, system: 'icd10', code: 'I10' }],
      line_items: [
        {
          sequence: 1,
          procedure_code: '99213',
          diagnosis_sequences: [1],
          service_date: '2026-11-04',
          quantity: 1,
          unit_amount: 12500,
        },
      ],
      currency: 'usd',
    });
    const active = (await client.search({
      resourceType: 'Claim',
      searchParams: { status: 'active', patient: fhirId(ana.id) },
    })) as Json;
    expect(active.entry.map((e: Json) => e.resource.id)).toEqual([fhirId(claim.id)]);
    const cancelled = (await client.search({
      resourceType: 'Claim',
      searchParams: { status: 'cancelled' },
    })) as Json;
    expect(cancelled.entry).toEqual([]);
    // Still submitted: no answer yet.
    const answers = (await client.search({
      resourceType: 'ClaimResponse',
      searchParams: { request: `Claim/${fhirId(claim.id)}` },
    })) as Json;
    expect(answers.entry).toEqual([]);
  });

  it('pages a 3-page search with nextPage, every match once, over absolute links', async () => {
    secret = (await makeKey(holder.db)).secret;
    client = new Client({ baseUrl: `${base}/fhir/R4`, bearerToken: secret });
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(fhirId((await v1('POST', '/v1/patients', { name: { family: `Kit${i}` } })).id));
    }
    let bundle = (await client.search({
      resourceType: 'Patient',
      searchParams: { family: 'kit', _count: 3 },
    })) as Json;
    const seen: string[] = [];
    let pages = 0;
    while (bundle) {
      pages++;
      expect(bundle.total).toBe(7);
      for (const link of bundle.link)
        expect(link.url.startsWith(`${base}/fhir/R4/Patient?`)).toBe(true);
      seen.push(...bundle.entry.map((e: Json) => e.resource.id));
      bundle = (await client.nextPage({ bundle: bundle as never })) as Json;
    }
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    expect(seen.sort()).toEqual([...made].sort());
  });

  it('created through FHIR, read back through /v1', async () => {
    secret = (await makeKey(holder.db)).secret;
    client = new Client({ baseUrl: `${base}/fhir/R4`, bearerToken: secret });
    const created = (await client.create({
      resourceType: 'Patient',
      body: {
        resourceType: 'Patient',
        name: [{ family: 'Okafor', given: ['Chidi'] }],
        telecom: [{ system: 'email', value: 'chidi@example.com' }],
        address: [{ line: ['1 Elm St'], city: 'Springfield', country: 'US' }],
      },
    })) as Json;
    const stored = await v1('GET', `/v1/patients/${created.id.replace('-', '_')}`);
    expect(stored).toMatchObject({
      name: { family: 'Okafor', given: ['Chidi'] },
      email: 'chidi@example.com',
      address: { line1: '1 Elm St', city: 'Springfield', country: 'US' },
    });
  });

  it('errors arrive as OperationOutcomes with their status', async () => {
    secret = (await makeKey(holder.db)).secret;
    client = new Client({ baseUrl: `${base}/fhir/R4`, bearerToken: secret });
    let thrown: { response?: { status: number; data: Json } } | undefined;
    try {
      await client.read({ resourceType: 'Patient', id: 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8W' });
    } catch (error) {
      thrown = error as typeof thrown;
    }
    expect(thrown?.response?.status).toBe(404);
    expect(thrown?.response?.data).toMatchObject({
      resourceType: 'OperationOutcome',
      issue: [{ code: 'not-found' }],
    });
    const anonymous = new Client({ baseUrl: `${base}/fhir/R4` });
    await expect(
      anonymous.search({ resourceType: 'Patient', searchParams: {} }),
    ).rejects.toMatchObject({
      response: { status: 401 },
    });
  });
});
