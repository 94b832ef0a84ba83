/**
 * Claims through the real app: submission with server-computed totals, every rule's 400 with
 * its `param`, 404s for unknown or other-mode references, lists, events, and the test
 * clearinghouse moving a claim to its documented outcome. Every response is checked against
 * the spec by the shared injector.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessHistory } from '../../server/audit/index.js';
import { advanceClaim } from '../../server/webhooks/clearinghouse.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey, type TestKey } from '../support/keys.js';

let t: TestApp;
let key: TestKey;
let liveKey: TestKey;
let patient: string;

type Body = Record<string, unknown>;

const LINE_1 = {
  sequence: 1,
  procedure_code: '99213',
  modifiers: ['25'],
  diagnosis_sequences: [1, 2],
  service_date: '2026-11-04',
  quantity: 1,
  unit_amount: 12500,
};
const LINE_2 = {
  sequence: 2,
  procedure_code: 'G0008',
  diagnosis_sequences: [2],
  service_date: '2026-11-04',
  quantity: 3,
  unit_amount: 4501,
};

function claimBody(overrides: Body = {}): Body {
  return {
    patient,
    billing_type: 'insurance',
    type: 'professional',
    billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
    insurance: { payer_id: '60054', member_id: 'W123456789' },
    diagnoses: [
      { sequence: 1, system: 'icd10', code: 'I10' },
      { sequence: 2, system: 'icd10', code: 'E11.9' },
    ],
    line_items: [LINE_1, LINE_2],
    currency: 'usd',
    ...overrides,
  };
}

async function createPatient(secret: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/patients',
    key: secret,
    body: { name: { family: 'Rivera', given: ['Ana'] } },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

async function submit(body: Body, secret = key.secret) {
  return t.request({ method: 'POST', url: '/v1/claims', key: secret, body });
}

async function retrieve(id: string, secret = key.secret) {
  return t.request({ method: 'GET', url: `/v1/claims/${id}`, key: secret });
}

async function claimEvents() {
  const res = await t.request({
    method: 'GET',
    url: '/v1/events?type=claim.*&limit=100',
    key: key.secret,
  });
  expect(res.status).toBe(200);
  return res.body.data as {
    type: string;
    data: { object: { id: string; status: string }; previous_attributes?: Body };
  }[];
}

beforeEach(async () => {
  t = await buildTestApp();
  key = await makeKey(t.db, { nowMs: t.clock.now });
  liveKey = await makeKey(t.db, { livemode: true, nowMs: t.clock.now });
  patient = await createPatient(key.secret);
});

afterEach(async () => {
  await t.close();
});

describe('submitClaim', () => {
  it('submits with the amounts computed by the server and emits claim.submitted', async () => {
    const res = await submit(claimBody({ metadata: { ehr_ref: 'A-1' } }));
    expect(res.status).toBe(200);
    const now = Math.floor(t.clock.now / 1000);
    expect(res.body).toMatchObject({
      object: 'claim',
      livemode: false,
      patient,
      appointment: null,
      status: 'submitted',
      currency: 'usd',
      amount_total: 12500 + 3 * 4501,
      amount_allowed: null,
      amount_paid: null,
      patient_responsibility: null,
      denial_reason: null,
      submitted_at: now,
      adjudicated_at: null,
      insurance: { payer_id: '60054', member_id: 'W123456789', group_number: null },
      metadata: { ehr_ref: 'A-1' },
    });
    expect(res.body.line_items.map((l: { amount: number }) => l.amount)).toEqual([12500, 13503]);
    expect(res.body.line_items[1].modifiers).toEqual([]);

    const events = await claimEvents();
    expect(events.map((e) => [e.type, e.data.object.id])).toEqual([
      ['claim.submitted', res.body.id],
    ]);
    expect(events[0]?.data.object).toEqual(res.body);

    const [audit] = await accessHistory(t.db, res.body.id);
    expect(audit).toMatchObject({ operationId: 'submitClaim', outcome: 'success', keyId: key.id });
    expect(audit?.objectIds).toContain(patient);

    const got = await retrieve(res.body.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('a self_pay claim needs no insurance (absent or null)', async () => {
    const { insurance: _, ...noInsurance } = claimBody({ billing_type: 'self_pay' });
    const absent = await submit(noInsurance);
    expect(absent.status).toBe(200);
    expect(absent.body.insurance).toBeNull();
    const explicit = await submit(claimBody({ billing_type: 'self_pay', insurance: null }));
    expect(explicit.status).toBe(200);
  });

  it('links an appointment of the same patient', async () => {
    const appt = await t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: key.secret,
      body: { patient, practitioner: 'Dr. Lee' },
    });
    const res = await submit(claimBody({ appointment: appt.body.id }));
    expect(res.status).toBe(200);
    expect(res.body.appointment).toBe(appt.body.id);
  });

  it.each<{ name: string; body: () => Body; code: string; param: string }>([
    {
      name: 'amount_total from the client',
      body: () => claimBody({ amount_total: 1 }),
      code: 'parameter_unknown',
      param: 'amount_total',
    },
    {
      name: 'a line amount from the client',
      body: () => claimBody({ line_items: [{ ...LINE_1, amount: 1 }, LINE_2] }),
      code: 'parameter_unknown',
      param: 'line_items[0][amount]',
    },
    {
      name: 'status from the client',
      body: () => claimBody({ status: 'paid' }),
      code: 'parameter_unknown',
      param: 'status',
    },
    {
      name: 'insurance missing on an insurance claim',
      body: () => claimBody({ insurance: undefined }),
      code: 'parameter_invalid',
      param: 'insurance',
    },
    {
      name: 'insurance null on an insurance claim',
      body: () => claimBody({ insurance: null }),
      code: 'parameter_invalid',
      param: 'insurance',
    },
    {
      name: 'insurance on a self_pay claim',
      body: () => claimBody({ billing_type: 'self_pay' }),
      code: 'parameter_invalid',
      param: 'insurance',
    },
    {
      name: 'NPI check digit',
      body: () => claimBody({ billing_provider: { npi: '1234567890', tax_id: '12-3456789' } }),
      code: 'parameter_invalid',
      param: 'billing_provider[npi]',
    },
    {
      name: 'NPI length',
      body: () => claimBody({ billing_provider: { npi: '123456789', tax_id: '12-3456789' } }),
      code: 'parameter_invalid',
      param: 'billing_provider[npi]',
    },
    {
      name: 'ICD-10-CM shape',
      body: () =>
        claimBody({
          diagnoses: [
            { sequence: 1, system: 'icd10', code: 'I10' },
            { sequence: 2, system: 'icd10', code: 'e11.9' },
          ],
        }),
      code: 'parameter_invalid',
      param: 'diagnoses[1][code]',
    },
    {
      name: 'procedure code shape',
      body: () => claimBody({ line_items: [LINE_1, { ...LINE_2, procedure_code: '9921' }] }),
      code: 'parameter_invalid',
      param: 'line_items[1][procedure_code]',
    },
    {
      name: 'diagnosis reference to nothing',
      body: () => claimBody({ line_items: [LINE_1, { ...LINE_2, diagnosis_sequences: [3] }] }),
      code: 'parameter_invalid',
      param: 'line_items[1][diagnosis_sequences][0]',
    },
    {
      name: 'duplicate line sequence',
      body: () => claimBody({ line_items: [LINE_1, { ...LINE_2, sequence: 1 }] }),
      code: 'parameter_invalid',
      param: 'line_items[1][sequence]',
    },
    {
      name: 'duplicate diagnosis sequence',
      body: () =>
        claimBody({
          diagnoses: [
            { sequence: 2, system: 'icd10', code: 'I10' },
            { sequence: 2, system: 'icd10', code: 'E11.9' },
          ],
        }),
      code: 'parameter_invalid',
      param: 'diagnoses[1][sequence]',
    },
    {
      name: 'upper-case currency',
      body: () => claimBody({ currency: 'USD' }),
      code: 'parameter_invalid',
      param: 'currency',
    },
    {
      name: 'no such currency',
      body: () => claimBody({ currency: 'xyz' }),
      code: 'parameter_invalid',
      param: 'currency',
    },
    {
      name: 'quantity zero',
      body: () => claimBody({ line_items: [{ ...LINE_1, quantity: 0 }] }),
      code: 'parameter_invalid',
      param: 'line_items[0][quantity]',
    },
    {
      name: 'no line items',
      body: () => claimBody({ line_items: [] }),
      code: 'parameter_invalid',
      param: 'line_items',
    },
  ])('$name → 400 $code ($param)', async ({ body, code, param }) => {
    const res = await submit(body());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
    expect(await claimEvents()).toEqual([]);
  });

  it('404 for an unknown patient, a patient of the other mode, and an unknown appointment', async () => {
    const unknown = await submit(claimBody({ patient: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'patient' });

    const livePatient = await createPatient(liveKey.secret);
    const other = await submit(claimBody({ patient: livePatient }));
    expect(other.status).toBe(404);
    expect(other.body.error).toMatchObject({ code: 'resource_missing', param: 'patient' });

    const noAppt = await submit(claimBody({ appointment: 'appt_01JD8A2B3C4D5E6F7G8H9J0K1M' }));
    expect(noAppt.status).toBe(404);
    expect(noAppt.body.error).toMatchObject({ code: 'resource_missing', param: 'appointment' });
  });

  it("400 for another patient's appointment", async () => {
    const other = await createPatient(key.secret);
    const appt = await t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: key.secret,
      body: { patient: other, practitioner: 'Dr. Lee' },
    });
    const res = await submit(claimBody({ appointment: appt.body.id }));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'appointment' });
  });

  it('tells a key without appointments:read nothing about whether an appointment exists', async () => {
    const other = await createPatient(key.secret);
    const appt = await t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: key.secret,
      body: { patient: other, practitioner: 'Dr. Lee' },
    });
    const billing = await makeKey(t.db, { kind: 'restricted', scopes: ['billing:write'] });
    const existing = await submit(claimBody({ appointment: appt.body.id }), billing.secret);
    const unknown = await submit(
      claimBody({ appointment: 'appt_01JD8A2B3C4D5E6F7G8H9J0K1M' }),
      billing.secret,
    );
    // The same answer, byte for byte apart from the request id.
    const strip = (body: { error: Record<string, unknown> }) => ({ ...body.error, request_id: '' });
    expect(existing.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(strip(existing.body)).toEqual(strip(unknown.body));
    // With appointments:read the more useful 400 stays.
    const reader = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['billing:write', 'appointments:read'],
    });
    const told = await submit(claimBody({ appointment: appt.body.id }), reader.secret);
    expect(told.body.error).toMatchObject({ code: 'parameter_invalid', param: 'appointment' });
  });
});

describe('listClaims and retrieveClaim', () => {
  it('filters by patient, status and created; other mode sees nothing', async () => {
    const other = await createPatient(key.secret);
    const a = (await submit(claimBody())).body.id as string;
    t.clock.now += 5000;
    const b = (await submit(claimBody({ patient: other }))).body.id as string;
    await advanceClaim(t.db, a, t.clock.now);

    const list = async (query: string, secret = key.secret) => {
      const res = await t.request({ method: 'GET', url: `/v1/claims${query}`, key: secret });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'list', url: '/v1/claims' });
      return (res.body.data as { id: string }[]).map((c) => c.id);
    };
    expect(await list('')).toEqual([b, a]);
    expect(await list(`?patient=${patient}`)).toEqual([a]);
    expect(await list('?status=accepted')).toEqual([a]);
    expect(await list('?status=submitted')).toEqual([b]);
    expect(await list(`?created[gt]=${Math.floor(t.clock.now / 1000) - 1}`)).toEqual([b]);
    expect(await list('', liveKey.secret)).toEqual([]);

    const live = await retrieve(a, liveKey.secret);
    expect(live.status).toBe(404);
    expect(live.body.error.code).toBe('resource_missing');
  });

  it('404 for an unknown id', async () => {
    const res = await retrieve('clm_01JD9C3D4E5F6G7H8J9K0M1N2P');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });

  it('records reads with the patient id', async () => {
    const id = (await submit(claimBody())).body.id as string;
    await retrieve(id);
    const read = t.audit.entries.find((e) => e.operationId === 'retrieveClaim');
    expect(read?.objectIds).toEqual([id, patient]);
  });
});

describe('test clearinghouse outcomes', () => {
  it.each([
    {
      member: 'W123456789',
      path: ['accepted', 'paid'],
      amounts: { amount_allowed: 26003, amount_paid: 26003, patient_responsibility: 0 },
    },
    {
      member: 'PARTIAL000',
      path: ['accepted', 'partially_paid'],
      amounts: { amount_allowed: 26003, amount_paid: 20802, patient_responsibility: 5201 },
    },
    {
      member: 'DENY00000',
      path: ['accepted', 'denied'],
      amounts: { amount_allowed: 0, amount_paid: 0, patient_responsibility: 26003 },
    },
    {
      member: 'REJECT0000',
      path: ['rejected'],
      amounts: { amount_allowed: null, amount_paid: null, patient_responsibility: null },
    },
  ])('$member → $path', async ({ member, path, amounts }) => {
    const submitted = await submit(
      claimBody({ insurance: { payer_id: '60054', member_id: member } }),
    );
    const id = submitted.body.id as string;
    for (const _ of path) {
      t.clock.now += 2000;
      expect(await advanceClaim(t.db, id, t.clock.now)).not.toBeNull();
    }
    expect(await advanceClaim(t.db, id, t.clock.now + 2000)).toBeNull();

    const res = await retrieve(id);
    expect(res.body).toMatchObject({
      status: path.at(-1),
      ...amounts,
      adjudicated_at: Math.floor(t.clock.now / 1000),
    });
    if (member === 'DENY00000' || member === 'REJECT0000') {
      expect(res.body.denial_reason).toEqual(expect.any(String));
    } else {
      expect(res.body.denial_reason).toBeNull();
    }
    const types = (await claimEvents()).map((e) => e.type).reverse();
    expect(types).toEqual(['claim.submitted', ...path.map((s) => `claim.${s}`)]);
  });
});
