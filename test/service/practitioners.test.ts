/**
 * Practitioner, the resource added through the resource modules (docs/design.md#resources):
 * `/v1` create, retrieve, update and list; an appointment naming one by `practitioner_id`;
 * the FHIR R4 read and search, valid by both validators, and the Appointment's reference.
 */
import { Fhir } from 'fhir';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { versions } from '../../server/versioning/index.js';
import { validate } from '../fhir/support/r4-definitions.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey, type TestKey } from '../support/keys.js';

let t: TestApp;
let key: TestKey;
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON fields freely; the injector checked each body against the spec.
type Body = Record<string, any>;

beforeEach(async () => {
  t = await buildTestApp();
  key = await makeKey(t.db, { nowMs: t.clock.now });
});
afterEach(async () => {
  await t.close();
});

/** A request in the latest version (2026-11-01 has no `practitioner_id` on appointments). */
async function call(method: 'GET' | 'POST', url: string, body?: Body, secret = key.secret) {
  return t.request<Body>({
    method,
    url,
    key: secret,
    headers: { 'patientcare-version': versions.latest },
    ...(body === undefined ? {} : { body }),
  });
}

const LEE = {
  name: { family: 'Lee', given: ['Jordan'], prefix: ['Dr.'] },
  npi: '1234567893',
  specialty: '207Q00000X',
  contact: { email: 'j.lee@clinic.example' },
};

async function createLee(): Promise<Body> {
  const res = await call('POST', '/v1/practitioners', LEE);
  expect(res.status).toBe(200);
  return res.body;
}

describe('/v1/practitioners', () => {
  it('creates, retrieves, updates and lists a practitioner, with events and audit rows', async () => {
    const created = await createLee();
    expect(created.id).toMatch(/^prac_[0-9A-Z]{26}$/);
    expect(created).toMatchObject({
      object: 'practitioner',
      npi: '1234567893',
      contact: { email: 'j.lee@clinic.example', phone: null },
      active: true,
      name: { family: 'Lee', given: ['Jordan'], prefix: ['Dr.'], suffix: [] },
    });
    expect((await call('GET', `/v1/practitioners/${created.id}`)).body).toEqual(created);

    const updated = await call('POST', `/v1/practitioners/${created.id}`, { active: false });
    expect(updated.body.active).toBe(false);
    const list = await call('GET', '/v1/practitioners?active=false');
    expect(list.body.data.map((p: Body) => p.id)).toEqual([created.id]);
    expect((await call('GET', '/v1/practitioners?active=true')).body.data).toEqual([]);

    const events = (await call('GET', '/v1/events')).body.data.map((e: Body) => e.type);
    expect(events).toEqual(['practitioner.updated', 'practitioner.created']);
    const audited = t.audit.entries.map((e) => e.operationId);
    expect(audited).toEqual(expect.arrayContaining(['retrievePractitioner', 'listPractitioners']));
  });

  it('refuses an NPI whose check digit is wrong, and an unknown id', async () => {
    const res = await call('POST', '/v1/practitioners', { ...LEE, npi: '1234567890' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'npi' });
    const missing = await call('GET', '/v1/practitioners/prac_01JD7Y2B3C4D5E6F7G8H9J0K1M');
    expect(missing.status).toBe(404);
  });

  it('is read with practitioners:read and not with patients:read alone', async () => {
    const created = await createLee();
    const restricted = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['patients:read'],
      nowMs: t.clock.now,
    });
    const refused = await call(
      'GET',
      `/v1/practitioners/${created.id}`,
      undefined,
      restricted.secret,
    );
    expect(refused.status).toBe(403);
    const granted = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['practitioners:read'],
      nowMs: t.clock.now,
    });
    const read = await call('GET', `/v1/practitioners/${created.id}`, undefined, granted.secret);
    expect(read.status).toBe(200);
  });
});

describe('an appointment with a practitioner', () => {
  async function patient(): Promise<string> {
    const res = await call('POST', '/v1/patients', { name: { family: 'Rivera' } });
    return res.body.id as string;
  }

  it('keeps practitioner_id, lists by it, and refers to Practitioner/{id} in FHIR', async () => {
    const prac = await createLee();
    const pat = await patient();
    const booked = await call('POST', '/v1/appointments', {
      patient: pat,
      practitioner: 'Dr. Lee',
      practitioner_id: prac.id,
    });
    expect(booked.status).toBe(200);
    expect(booked.body.practitioner_id).toBe(prac.id);
    await call('POST', '/v1/appointments', { patient: pat, practitioner: 'Dr. Kim' });

    const listed = await call('GET', `/v1/appointments?practitioner_id=${prac.id}`);
    expect(listed.body.data.map((a: Body) => a.id)).toEqual([booked.body.id]);

    const fhir = await call('GET', `/fhir/R4/Appointment/${booked.body.id.replace('_', '-')}`);
    expect(fhir.status).toBe(200);
    expect(fhir.body.participant).toContainEqual({
      actor: {
        reference: `Practitioner/${prac.id.replace('_', '-')}`,
        type: 'Practitioner',
        display: 'Dr. Lee',
      },
      status: 'accepted',
    });
  });

  it('refuses a practitioner_id that does not exist in the mode', async () => {
    const pat = await patient();
    const res = await call('POST', '/v1/appointments', {
      patient: pat,
      practitioner: 'Dr. Lee',
      practitioner_id: 'prac_01JD7Y2B3C4D5E6F7G8H9J0K1M',
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'practitioner_id' });
  });
});

describe('FHIR R4 Practitioner', () => {
  const fhirJs = new Fhir();

  it('reads a Practitioner valid by Medplum and FHIR.js, and searches it', async () => {
    const prac = await createLee();
    const id = prac.id.replace('_', '-');
    const read = await call('GET', `/fhir/R4/Practitioner/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.identifier).toEqual([
      { system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' },
    ]);
    const medplum = validate(read.body as { resourceType: string }).filter(
      (i) => i.severity === 'error' || i.severity === 'fatal',
    );
    expect(medplum).toEqual([]);
    const fhirJsErrors = fhirJs
      .validate(read.body, { errorOnUnexpected: true })
      .messages.filter((m) => m.severity === 'error');
    expect(fhirJsErrors).toEqual([]);

    for (const query of [
      'name=jor',
      'family=LE',
      'identifier=http://hl7.org/fhir/sid/us-npi|1234567893',
      'identifier=1234567893',
    ]) {
      const found = await call('GET', `/fhir/R4/Practitioner?${query}`);
      expect(found.body.total, query).toBe(1);
    }
    for (const query of ['name=kim', 'identifier=https://other.example|1234567893']) {
      const none = await call('GET', `/fhir/R4/Practitioner?${query}`);
      expect(none.body.total, query).toBe(0);
    }
  });

  it('is in the CapabilityStatement with each parameter typed by its face', async () => {
    const res = await t.request<Body>({ method: 'GET', url: '/fhir/R4/metadata' });
    const entry = res.body.rest[0].resource.find((r: Body) => r.type === 'Practitioner');
    const types = Object.fromEntries(entry.searchParam.map((p: Body) => [p.name, p.type]));
    expect(types).toMatchObject({
      _id: 'token',
      name: 'string',
      family: 'string',
      identifier: 'token',
    });
  });
});
