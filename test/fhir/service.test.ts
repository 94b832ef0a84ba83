/**
 * The FHIR R4 face through the real app (`app.inject`), every answer checked against the spec
 * by the shared injector (fhir+json, OperationOutcome errors): CapabilityStatement, Patient
 * read/search/create with the `/v1` rules, paging, conditional reads, Appointment, Claim and
 * ClaimResponse, keys, scopes, modes and the audit trail.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceClaim } from '../../server/webhooks/clearinghouse.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey, type TestKey } from '../support/keys.js';

let t: TestApp;
let key: TestKey;

// biome-ignore lint/suspicious/noExplicitAny: tests read FHIR JSON fields freely; the injector checked each body against the spec.
type Body = Record<string, any>;
const FHIR = { 'content-type': 'application/fhir+json' };

beforeEach(async () => {
  t = await buildTestApp();
  key = await makeKey(t.db, { nowMs: t.clock.now });
});
afterEach(async () => {
  await t.close();
});

async function v1Patient(body: Body, secret = key.secret): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/v1/patients', key: secret, body });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

const fhirId = (id: string) => id.replace('_', '-');

/** A GET with `secret` (default: the test key; `null`: no key). */
async function get(
  url: string,
  secret: string | null = key.secret,
  headers: Record<string, string> = {},
) {
  return t.request<Body>({
    method: 'GET',
    url,
    ...(secret === null ? {} : { key: secret }),
    headers,
  });
}

describe('GET /fhir/R4/metadata', () => {
  it('needs no key and lists exactly what is served', async () => {
    const res = await get('/fhir/R4/metadata', null);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    expect(res.body.fhirVersion).toBe('4.0.1');
    const resources = res.body.rest[0].resource as Body[];
    expect(resources.map((r) => r.type)).toEqual([
      'Appointment',
      'Claim',
      'ClaimResponse',
      'Patient',
      'Practitioner',
    ]);
    const patient = resources.find((r) => r.type === 'Patient')!;
    expect(patient.interaction.map((i: Body) => i.code)).toEqual(['create', 'read', 'search-type']);
    expect(patient.interaction[2].documentation).toContain('POST [base]/Patient/_search');
    expect(patient.searchParam.map((p: Body) => p.name).sort()).toEqual([
      '_count',
      '_id',
      '_summary',
      'birthdate',
      'email',
      'family',
      'gender',
      'given',
      'identifier',
      'phone',
    ]);
  });

  it('says how to authenticate and where it is', async () => {
    const res = await get('/fhir/R4/metadata', null);
    // inject() has no socket: the default address stands in for the listening one.
    expect(res.body.implementation.url).toBe('http://127.0.0.1:4010/fhir/R4');
    expect(res.body.rest[0].security).toMatchObject({
      cors: false,
      service: [
        {
          coding: [
            {
              system: 'http://terminology.hl7.org/CodeSystem/restful-security-service',
              code: 'OAuth',
            },
          ],
        },
      ],
    });
    // The scopes of the FHIR routes and the types served, Practitioner's included (issue 45).
    const description: string = res.body.rest[0].security.description;
    expect(description).toContain(
      'Keys carry scopes: patients:read, patients:write, practitioners:read, appointments:read, billing:read;',
    );
    expect(description).toContain(
      'system/<type>.read or .rs, system/<type>.write or .cud, system/<type>.* for Appointment, Claim, ClaimResponse, Patient and Practitioner',
    );
  });

  it('JSON however asked; XML is 406 with an OperationOutcome however asked', async () => {
    for (const [url, accept] of [
      ['/fhir/R4/metadata?_format=json', undefined],
      ['/fhir/R4/metadata?_format=application/fhir%2Bjson', undefined],
      ['/fhir/R4/metadata', 'application/fhir+json'],
      ['/fhir/R4/metadata', 'application/json'],
      ['/fhir/R4/metadata', 'application/fhir+xml;q=0.9, application/fhir+json'],
      ['/fhir/R4/metadata', '*/*'],
    ] as const) {
      const res = await get(url, null, accept === undefined ? {} : { accept });
      expect(res.status, `${url} ${accept}`).toBe(200);
      expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    }
    for (const [url, accept] of [
      ['/fhir/R4/metadata?_format=xml', undefined],
      ['/fhir/R4/metadata?_format=application/fhir%2Bxml', undefined],
      ['/fhir/R4/metadata', 'application/fhir+xml'],
      ['/fhir/R4/metadata', 'application/xml'],
    ] as const) {
      const res = await get(url, null, accept === undefined ? {} : { accept });
      expect(res.status, `${url} ${accept}`).toBe(406);
      expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
      expect(res.body.issue[0]).toMatchObject({ severity: 'error', code: 'not-supported' });
    }
    const keyed = await get('/fhir/R4/Patient', key.secret, { accept: 'application/fhir+xml' });
    expect(keyed.status).toBe(406);
    expect((await get('/fhir/R4/Patient?_format=xml', key.secret)).status).toBe(406);
  });
});

describe('errors are OperationOutcomes with the right status', () => {
  it.each([
    ['no key', null, 401, 'login'],
    ['a bad key', 'sk_test_nope', 401, 'login'],
  ] as const)('%s: %s', async (_label, secret, status, code) => {
    const res = await get('/fhir/R4/Patient', secret);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code }] });
    expect(res.body.error).toBeUndefined();
  });

  it('403 for a restricted key without the scope, and the SMART name grants it', async () => {
    const appointmentsOnly = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['appointments:read'],
      nowMs: t.clock.now,
    });
    const denied = await get('/fhir/R4/Patient', appointmentsOnly.secret);
    expect(denied.status).toBe(403);
    expect(denied.body.issue[0].code).toBe('forbidden');
    const smart = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['system/Patient.read'],
      nowMs: t.clock.now,
    });
    expect((await get('/fhir/R4/Patient', smart.secret)).status).toBe(200);
    // Read does not imply write.
    const write = await t.request({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: smart.secret,
      headers: FHIR,
      body: { resourceType: 'Patient', name: [{ family: 'X' }] },
    });
    expect(write.status).toBe(403);
  });

  it('404 for an unknown id, an id that is not ours, another mode, and an unknown URL', async () => {
    const id = await v1Patient({ name: { family: 'Rivera' } });
    const live = await makeKey(t.db, { livemode: true, nowMs: t.clock.now });
    for (const [url, secret] of [
      ['/fhir/R4/Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W', key.secret],
      ['/fhir/R4/Patient/example', key.secret],
      [`/fhir/R4/Patient/${fhirId(id)}`, live.secret],
      ['/fhir/R4/Observation', key.secret],
    ] as const) {
      const res = await get(url, secret);
      expect(res.status, url).toBe(404);
      expect(res.body.issue[0].code, url).toBe('not-found');
    }
  });

  it('an unknown search parameter: ignored with a warning; 400 naming it under handling=strict', async () => {
    const strict = { prefer: 'handling=strict' };
    const res = await get('/fhir/R4/Patient?name=Rivera', key.secret, strict);
    expect(res.status).toBe(400);
    expect(res.body.issue[0]).toMatchObject({ code: 'not-supported', expression: ['name'] });
    // The value is not echoed back.
    expect(res.text).not.toContain('Rivera');
    const lenient = await get('/fhir/R4/Patient?name=Rivera');
    expect(lenient.status).toBe(200);
    expect(lenient.text).not.toContain('Rivera');
    expect(lenient.body.entry.at(-1)).toMatchObject({
      search: { mode: 'outcome' },
      resource: { issue: [{ severity: 'warning', code: 'not-supported', expression: ['name'] }] },
    });
  });
});

it('a path id over the router length limit is a 400 OperationOutcome, not the /v1 envelope', async () => {
  // Found by the contract fuzzer: the router refuses it before the FHIR scope is entered.
  const res = await get(`/fhir/R4/Claim/x_${'0'.repeat(300)}`);
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
  expect(res.body.resourceType).toBe('OperationOutcome');
  // /v1 keeps its envelope for the same refusal.
  const v1 = await get(`/v1/claims/clm_${'0'.repeat(300)}`);
  expect(v1.status).toBe(400);
  expect(v1.body.error.code).toBe('parameter_invalid');
});

describe('Patient', () => {
  it('written through /v1 reads back through FHIR, with ETag and 304', async () => {
    const id = await v1Patient({
      name: { family: 'Rivera', given: ['Ana'] },
      gender: 'female',
      birth_date: '1987-04-12',
      identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: '000123456' }],
    });
    const res = await get(`/fhir/R4/Patient/${fhirId(id)}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resourceType: 'Patient',
      id: fhirId(id),
      name: [{ family: 'Rivera', given: ['Ana'] }],
      gender: 'female',
      birthDate: '1987-04-12',
    });
    const etag = String(res.headers.etag);
    expect(etag).toBe(`W/"${res.body.meta.versionId}"`);
    const again = await get(`/fhir/R4/Patient/${fhirId(id)}`, key.secret, {
      'if-none-match': etag,
    });
    expect(again.status).toBe(304);
    await t.request({
      method: 'POST',
      url: `/v1/patients/${id}`,
      key: key.secret,
      body: { gender: 'other' },
    });
    const changed = await get(`/fhir/R4/Patient/${fhirId(id)}`, key.secret, {
      'if-none-match': etag,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.gender).toBe('other');
  });

  it('created through FHIR reads back through /v1 (201, Location), and the audit has its id', async () => {
    const res = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: FHIR,
      body: {
        resourceType: 'Patient',
        name: [{ family: 'Okafor', given: ['Chidi'] }],
        telecom: [{ system: 'phone', value: '+14155550100' }],
        birthDate: '1990-01-02',
      },
    });
    expect(res.status).toBe(201);
    const id = (res.body.id as string).replace('-', '_');
    // inject() has no socket: the default address stands in for the listening one.
    expect(res.headers.location).toBe(`http://127.0.0.1:4010/fhir/R4/Patient/${res.body.id}`);
    const v1 = await t.request<Body>({ method: 'GET', url: `/v1/patients/${id}`, key: key.secret });
    expect(v1.body).toMatchObject({
      name: { family: 'Okafor', given: ['Chidi'] },
      phone: '+14155550100',
      birth_date: '1990-01-02',
    });
    const events = await t.request<Body>({ method: 'GET', url: '/v1/events', key: key.secret });
    expect(events.body.data[0]).toMatchObject({ type: 'patient.created' });
    expect(
      t.audit.entries.some((e) => e.operationId === 'retrievePatient' && e.objectIds.includes(id)),
    ).toBe(true);
  });

  it.each([
    ['a birth date in the future', { birthDate: '2999-01-01' }, 'business-rule'],
    ['two names', { name: [{ family: 'A' }, { family: 'B' }] }, 'not-supported'],
    ['a phone that is not E.164', { telecom: [{ system: 'phone', value: '555-0100' }] }, 'value'],
  ])('refuses %s with 422', async (_label, patch, code) => {
    const res = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: FHIR,
      body: { resourceType: 'Patient', name: [{ family: 'Rivera' }], ...patch },
    });
    expect(res.status).toBe(422);
    expect(res.body.issue[0].code).toBe(code);
  });

  it('409 for a duplicate MRN, 400 for bad JSON, 415 for another media type', async () => {
    const mrn = {
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR' }] },
      system: 'https://clinic.example/mrn',
      value: '42',
    };
    const body = { resourceType: 'Patient', name: [{ family: 'A' }], identifier: [mrn] };
    const first = await t.request({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: FHIR,
      body,
    });
    expect(first.status).toBe(201);
    const dup = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: FHIR,
      body,
    });
    expect(dup.status).toBe(409);
    expect(dup.body.issue[0].code).toBe('duplicate');
    const bad = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: FHIR,
      payload: '{"resourceType":',
    });
    expect(bad.status).toBe(400);
    const text = await t.request<Body>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: key.secret,
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.status).toBe(415);
    expect(text.body.resourceType).toBe('OperationOutcome');
  });

  it('searches by every parameter, pages with _count and next links', async () => {
    const ana = await v1Patient({
      name: { family: 'Rivera', given: ['Ana'] },
      gender: 'female',
      birth_date: '1987-04-12',
      email: 'Ana@Example.com',
      phone: '+14155550123',
      identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: '7' }],
    });
    t.clock.now += 1000;
    const rivas = await v1Patient({ name: { family: 'Rivas', given: ['Bea'] }, gender: 'male' });
    t.clock.now += 1000;
    await v1Patient({ name: { family: 'Lee' } });
    const ids = async (query: string) => {
      const res = await get(`/fhir/R4/Patient?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body).toMatchObject({ resourceType: 'Bundle', type: 'searchset' });
      return (res.body.entry as Body[]).map((e) => (e.resource.id as string).replace('-', '_'));
    };
    expect(await ids('family=riv')).toEqual([rivas, ana]);
    expect(await ids('given=an')).toEqual([ana]);
    expect(await ids('birthdate=1987-04-12')).toEqual([ana]);
    expect(await ids('birthdate=eq1987-04-12')).toEqual([ana]);
    expect(await ids('gender=male')).toEqual([rivas]);
    expect(await ids('email=ana@example.com')).toEqual([ana]);
    expect(await ids('phone=%2B14155550123')).toEqual([ana]);
    expect(await ids('identifier=https://clinic.example/mrn|7')).toEqual([ana]);
    expect(await ids('identifier=7')).toEqual([ana]);
    expect(await ids(`_id=${fhirId(ana)}`)).toEqual([ana]);
    expect(await ids('_id=example')).toEqual([]);

    const first = await get('/fhir/R4/Patient?family=riv&_count=1');
    expect(first.body.entry).toHaveLength(1);
    const next = (first.body.link as Body[]).find((l) => l.relation === 'next');
    expect(next?.url).toBe(
      `http://127.0.0.1:4010/fhir/R4/Patient?_count=1&family=riv&_cursor=${fhirId(rivas)}`,
    );
    expect(first.body.total).toBe(2);
    const second = await get(new URL(next!.url).pathname + new URL(next!.url).search);
    expect(second.body.total).toBe(2);
    expect(second.body.entry.map((e: Body) => e.resource.id)).toEqual([fhirId(ana)]);
    expect((second.body.link as Body[]).some((l) => l.relation === 'next')).toBe(false);
  });

  it('audits the patients a search returned, never the values searched for', async () => {
    const id = await v1Patient({ name: { family: 'Zyxwv' } });
    t.audit.entries.length = 0;
    await get('/fhir/R4/Patient?family=Zyxwv');
    const entry = t.audit.entries.find((e) => e.operationId === 'searchFhirPatients');
    expect(entry?.objectIds).toEqual([id]);
    expect(JSON.stringify(t.audit.entries)).not.toContain('Zyxwv');
  });
});

describe('Appointment, Claim, ClaimResponse', () => {
  it('reads and searches appointments by patient, date and status', async () => {
    const patient = await v1Patient({ name: { family: 'Rivera' } });
    const start = Math.floor(t.clock.now / 1000) + 86_400;
    const make = async (offset: number) => {
      const res = await t.request<Body>({
        method: 'POST',
        url: '/v1/appointments',
        key: key.secret,
        body: {
          patient,
          practitioner: 'Dr. Lee',
          start: start + offset,
          end: start + offset + 1800,
        },
      });
      expect(res.status).toBe(200);
      return res.body.id as string;
    };
    const early = await make(0);
    const late = await make(10 * 86_400);
    const read = await get(`/fhir/R4/Appointment/${fhirId(early)}`);
    expect(read.status).toBe(200);
    expect(read.body.participant[0].actor.reference).toBe(`Patient/${fhirId(patient)}`);
    const patientRead = await get(`/fhir/R4/${read.body.participant[0].actor.reference}`);
    expect(patientRead.status).toBe(200);

    const ids = async (query: string) =>
      ((await get(`/fhir/R4/Appointment?${query}`)).body.entry as Body[]).map((e) => e.resource.id);
    const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
    expect(await ids(`patient=Patient/${fhirId(patient)}`)).toEqual([fhirId(late), fhirId(early)]);
    expect(await ids(`date=${day(start)}`)).toEqual([fhirId(early)]);
    expect(await ids(`date=gt${day(start)}`)).toEqual([fhirId(late)]);
    expect(await ids(`date=ge${day(start)}&date=lt${day(start + 5 * 86_400)}`)).toEqual([
      fhirId(early),
    ]);
    expect(await ids('status=pending')).toEqual([fhirId(late), fhirId(early)]);
    expect(await ids('status=booked')).toEqual([]);
    expect(await ids('status=waitlist')).toEqual([]);
    const bad = await get('/fhir/R4/Appointment?date=2026-02-30');
    expect(bad.status).toBe(400);
  });

  it('claims read and search; a ClaimResponse appears once the clearinghouse answers', async () => {
    const patient = await v1Patient({ name: { family: 'Rivera' } });
    const submitted = await t.request<Body>({
      method: 'POST',
      url: '/v1/claims',
      key: key.secret,
      body: {
        patient,
        billing_type: 'insurance',
        type: 'professional',
        billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
        insurance: { payer_id: '60054', member_id: 'PARTIAL000' },
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
      },
    });
    expect(submitted.status).toBe(200);
    const id = submitted.body.id as string;
    const claim = await get(`/fhir/R4/Claim/${fhirId(id)}`);
    expect(claim.body).toMatchObject({
      resourceType: 'Claim',
      status: 'active',
      total: { value: 125, currency: 'USD' },
    });
    expect((await get(`/fhir/R4/ClaimResponse/${fhirId(id)}`)).status).toBe(404);
    expect((await get('/fhir/R4/Claim?status=active')).body.entry).toHaveLength(1);
    expect((await get('/fhir/R4/Claim?status=cancelled')).body.entry).toHaveLength(0);
    const today = new Date(t.clock.now).toISOString().slice(0, 10);
    expect((await get(`/fhir/R4/Claim?created=${today}`)).body.entry).toHaveLength(1);
    expect((await get(`/fhir/R4/Claim?created=lt${today}`)).body.entry).toHaveLength(0);

    for (let step = 0; step < 3; step++) {
      t.clock.now += 5000;
      await advanceClaim(t.db, id, t.clock.now);
    }
    const response = await get(`/fhir/R4/ClaimResponse/${fhirId(id)}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      request: { reference: `Claim/${fhirId(id)}` },
      outcome: 'partial',
    });
    const found = await get(`/fhir/R4/ClaimResponse?request=Claim/${fhirId(id)}`);
    expect(found.body.entry).toHaveLength(1);
  });
});
