import { describe, expect, it } from 'vitest';
import { makeKey } from '../support/keys.js';
import { errorOf, patientFields, useService, writeAuditRows } from './support/fixtures.js';

const fx = useService();

async function publishable(livemode = false): Promise<string> {
  return (await makeKey(fx().t.db, { kind: 'publishable', livemode })).secret;
}

async function makeToken(key: string, patient = patientFields(1)) {
  return fx().t.request({
    method: 'POST',
    url: '/v1/tokens',
    key,
    body: { type: 'patient_intake', patient },
  });
}

describe('createToken', () => {
  it('returns a 10-minute single-use token that never echoes the patient', async () => {
    const { t } = fx();
    const res = await makeToken(await publishable());
    expect(res.status).toBe(200);
    const now = Math.floor(t.clock.now / 1000);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tok_[0-9A-HJKMNP-TV-Z]{26}$/),
      object: 'token',
      livemode: false,
      created: now,
      expires: now + 600,
      type: 'patient_intake',
      used: false,
    });
    expect(res.text).not.toContain('Family1');
    expect((await writeAuditRows(t, 'createToken'))[0]?.objectIds).toEqual([res.body.id]);
  });

  it('validates the patient fields as createPatient does, naming them from the root', async () => {
    const key = await publishable();
    const unknown = await makeToken(key, { name: { family: 'X' }, nickname: 'y' });
    expect(errorOf(unknown)).toEqual({
      status: 400,
      code: 'parameter_unknown',
      param: 'patient[nickname]',
    });
    const future = await makeToken(key, { name: { family: 'X' }, birth_date: '2999-01-01' });
    expect(errorOf(future)).toEqual({
      status: 400,
      code: 'parameter_invalid',
      param: 'patient[birth_date]',
    });
  });

  it('is refused to secret keys', async () => {
    const { test } = fx();
    const res = await makeToken(test.secret);
    expect(errorOf(res)).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });
});

describe('createPatient from a token', () => {
  it('creates the carried patient once; a second use is 400 token_invalid', async () => {
    const { t, test } = fx();
    const token = await makeToken(await publishable(), patientFields(3, { metadata: { a: '1' } }));
    const first = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: token.body.id, metadata: { b: '2' } },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      name: { family: 'Family3', given: ['Given3'] },
      birth_date: '1980-01-01',
      metadata: { a: '1', b: '2' },
    });
    const again = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: token.body.id },
    });
    expect(errorOf(again)).toEqual({ status: 400, code: 'token_invalid', param: 'token' });
    const events = await t.request({ method: 'GET', url: '/v1/events', key: test.secret });
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['patient.created']);
  });

  it('refuses an expired token, and an unknown one', async () => {
    const { t, test } = fx();
    const token = await makeToken(await publishable());
    t.clock.now += 600_000;
    const expired = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: token.body.id },
    });
    expect(errorOf(expired)).toEqual({ status: 400, code: 'token_invalid', param: 'token' });
    const unknown = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: 'tok_01JDB2C3D4E5F6G7H8J9K0M1NP' },
    });
    expect(errorOf(unknown)).toEqual({ status: 400, code: 'token_invalid', param: 'token' });
  });

  it('is still usable a moment before it expires', async () => {
    const { t, test } = fx();
    const token = await makeToken(await publishable());
    t.clock.now += 599_000;
    const res = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: token.body.id },
    });
    expect(res.status).toBe(200);
  });

  it('answers 403 livemode_mismatch for a token of the other mode, and leaves it usable', async () => {
    const { t, test, live } = fx();
    const token = await makeToken(await publishable(true));
    expect(token.body.livemode).toBe(true);
    const crossed = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: token.body.id },
    });
    expect(errorOf(crossed)).toEqual({ status: 403, code: 'livemode_mismatch', param: 'token' });
    const same = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: live.secret,
      body: { token: token.body.id },
    });
    expect(same.status).toBe(200);
    expect(same.body.livemode).toBe(true);
  });

  it('leaves the token usable when the patient it carries conflicts (409), since nothing was written', async () => {
    const { t, test } = fx();
    await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: patientFields(1),
    });
    const token = await makeToken(await publishable(), patientFields(1));
    const clash = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: test.secret,
      body: { token: token.body.id },
    });
    expect(errorOf(clash)).toMatchObject({ status: 409, code: 'resource_already_exists' });
    const row = await t.db.get<{ used_at: unknown }>('SELECT used_at FROM tokens WHERE id = $1', [
      token.body.id,
    ]);
    expect(row?.used_at).toBeNull();
  });
});
