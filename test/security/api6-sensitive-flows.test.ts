/**
 * OWASP API6:2023 Unrestricted Access to Sensitive Business Flows. The intake token is the
 * flow a public page drives (publishable key → token → server creates the patient): it must
 * be single use even when the redemptions race, and one token never yields two patients by
 * varying the Idempotency-Key. Ephemeral keys are minted only by secret keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patientBody } from './support/operations.js';
import { buildSecurityApp, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

async function token(n: number): Promise<string> {
  const res = await s.t.request({
    method: 'POST',
    url: '/v1/tokens',
    key: s.keys.publishable,
    body: {
      type: 'patient_intake',
      patient: patientBody({
        family: `Intake${n}`,
        given: 'Race',
        birthDate: '1985-05-05',
        mrn: `MRN-RACE-${n}`,
        email: `race${n}@example.com`,
      }),
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

async function patientsNamed(family: string): Promise<number> {
  const res = await s.t.request({
    method: 'POST',
    url: '/v1/patients/search',
    key: s.keys.secret,
    body: { family_name: family, limit: 100 },
  });
  return res.body.data.length as number;
}

describe('intake tokens', () => {
  it('20 concurrent redemptions of one token: exactly one patient, the rest 400 token_invalid', async () => {
    const id = await token(1);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.t.request({
          method: 'POST',
          url: '/v1/patients',
          key: s.keys.secret,
          body: { token: id },
          idempotencyKey: `race-${i}`,
        }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(400);
      expect(a.body.error.code).toBe('token_invalid');
    }
    expect(await patientsNamed('Intake1')).toBe(1);
  });

  it('redeemed by the live key of another account mode: refused, and still usable once', async () => {
    const id = await token(2);
    const live = await s.t.request({
      method: 'POST',
      url: '/v1/patients',
      key: s.keys.live,
      body: { token: id },
    });
    expect(live.status).toBe(403);
    const ok = await s.t.request({
      method: 'POST',
      url: '/v1/patients',
      key: s.keys.secret,
      body: { token: id },
    });
    expect(ok.status).toBe(200);
    const again = await s.t.request({
      method: 'POST',
      url: '/v1/patients',
      key: s.keys.secret,
      body: { token: id },
    });
    expect(again.status).toBe(400);
    expect(await patientsNamed('Intake2')).toBe(1);
  });

  it('a publishable key cannot redeem its own token', async () => {
    const id = await token(3);
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/patients',
      key: s.keys.publishable,
      body: { token: id },
    });
    expect(res.status).toBe(403);
    expect(await patientsNamed('Intake3')).toBe(0);
  });
});

describe('ephemeral keys', () => {
  it('only a secret key mints them: restricted, publishable and ephemeral keys get 403', async () => {
    for (const key of [s.keys.restrictedAll, s.keys.publishable, s.keys.ephemeral]) {
      const res = await s.t.request({
        method: 'POST',
        url: '/v1/ephemeral_keys',
        key,
        body: { patient: s.test.pat, scopes: ['patients:read'] },
      });
      expect(res.status).toBe(403);
    }
  });
});
