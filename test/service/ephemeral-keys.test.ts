import { describe, expect, it } from 'vitest';
import { makeKey } from '../support/keys.js';
import { createPatient, errorOf, patientFields, useService } from './support/fixtures.js';

const fx = useService();

async function ephemeral(key: string, patient: string, scopes = ['patients:read']) {
  return fx().t.request({
    method: 'POST',
    url: '/v1/ephemeral_keys',
    key,
    body: { patient, scopes },
  });
}

describe('createEphemeralKey', () => {
  it('returns a 15-minute ek_test_ key for the patient, secret only here', async () => {
    const { t, test } = fx();
    const patient = await createPatient(t, test.secret);
    const res = await ephemeral(test.secret, patient.body.id, [
      'patients:read',
      'appointments:read',
    ]);
    expect(res.status).toBe(200);
    const now = Math.floor(t.clock.now / 1000);
    expect(res.body).toMatchObject({
      object: 'ephemeral_key',
      livemode: false,
      created: now,
      expires: now + 900,
      patient: patient.body.id,
      scopes: ['patients:read', 'appointments:read'],
    });
    expect(res.body.id).toMatch(/^ephkey_/);
    expect(res.body.secret).toMatch(/^ek_test_/);
  });

  it('makes ek_live_ keys from a live key', async () => {
    const { t, live } = fx();
    const patient = await createPatient(t, live.secret);
    const res = await ephemeral(live.secret, patient.body.id);
    expect(res.body.secret).toMatch(/^ek_live_/);
    expect(res.body.livemode).toBe(true);
  });

  it('answers 404 (param patient) for an unknown patient or one of the other mode', async () => {
    const { t, test, live } = fx();
    const livePatient = await createPatient(t, live.secret);
    for (const id of ['pat_01JD7X5K8M9N2P3Q4R5S6T7V8W', livePatient.body.id]) {
      const res = await ephemeral(test.secret, id);
      expect(errorOf(res)).toEqual({ status: 404, code: 'resource_missing', param: 'patient' });
    }
  });

  it('refuses scopes outside the ephemeral set and restricted keys', async () => {
    const { t, test } = fx();
    const patient = await createPatient(t, test.secret);
    const scope = await ephemeral(test.secret, patient.body.id, ['patients:write']);
    expect(errorOf(scope)).toMatchObject({ status: 400, code: 'parameter_invalid' });
    const restricted = await makeKey(t.db, { kind: 'restricted', scopes: ['patients:write'] });
    const res = await ephemeral(restricted.secret, patient.body.id);
    expect(errorOf(res)).toMatchObject({ status: 403, code: 'secret_key_required' });
  });
});

describe('an ephemeral key in use', () => {
  it('reads its own patient; another patient is 403 insufficient_scope', async () => {
    const { t, test } = fx();
    const mine = await createPatient(t, test.secret, patientFields(1));
    const other = await createPatient(t, test.secret, patientFields(2));
    const ek = await ephemeral(test.secret, mine.body.id);
    const own = await t.request({
      method: 'GET',
      url: `/v1/patients/${mine.body.id}`,
      key: ek.body.secret,
    });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(mine.body.id);
    const theirs = await t.request({
      method: 'GET',
      url: `/v1/patients/${other.body.id}`,
      key: ek.body.secret,
    });
    expect(errorOf(theirs)).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(t.audit.entries).toContainEqual(
      expect.objectContaining({ objectIds: [other.body.id], outcome: 'denied' }),
    );
  });

  it('cannot list, search or update patients', async () => {
    const { t, test } = fx();
    const mine = await createPatient(t, test.secret);
    const ek = await ephemeral(test.secret, mine.body.id);
    const calls = [
      { method: 'GET' as const, url: '/v1/patients' },
      { method: 'POST' as const, url: '/v1/patients/search', body: {} },
      { method: 'POST' as const, url: `/v1/patients/${mine.body.id}`, body: { active: false } },
    ];
    for (const call of calls) {
      const res = await t.request({ ...call, key: ek.body.secret });
      expect(res.status).toBe(403);
    }
  });

  it('needs patients:read to read its patient', async () => {
    const { t, test } = fx();
    const mine = await createPatient(t, test.secret);
    const ek = await ephemeral(test.secret, mine.body.id, ['appointments:read']);
    const res = await t.request({
      method: 'GET',
      url: `/v1/patients/${mine.body.id}`,
      key: ek.body.secret,
    });
    expect(errorOf(res)).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('expires after 15 minutes', async () => {
    const { t, test } = fx();
    const mine = await createPatient(t, test.secret);
    const ek = await ephemeral(test.secret, mine.body.id);
    t.clock.now += 900_000;
    const res = await t.request({
      method: 'GET',
      url: `/v1/patients/${mine.body.id}`,
      key: ek.body.secret,
    });
    expect(errorOf(res)).toMatchObject({ status: 401, code: 'api_key_expired' });
  });
});
