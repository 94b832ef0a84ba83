/**
 * OWASP API3:2023 Broken Object Property Level Authorization. Generated from the spec: every
 * readOnly property of the object a write answers with, sent in that write's body, is refused
 * with 400 naming it (mass assignment: `livemode`, `amount_total`, `status`, `secret`, …),
 * while the same body without it passes; writeOnly properties are never returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject, type Phi, requestFor } from './support/operations.js';
import { buildSecurityApp, routes, type SecurityApp } from './support/security-app.js';
import { readOnlyProbes, withProperty, writeOnlyNames } from './support/spec-properties.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

let serial = 0;
/** Fresh PHI per request, so positive controls never collide on the MRN (409). */
function phi(): Phi {
  serial++;
  return {
    family: `Prop${serial}`,
    given: 'Ro',
    birthDate: '1990-02-03',
    mrn: `MRN-API3-${serial}`,
    email: `p${serial}@example.com`,
  };
}

const writes = routes.filter((r) => r.schemas.body !== undefined);

describe.each(writes.map((r) => [r.operationId] as const))('%s', (operationId) => {
  const probes = readOnlyProbes(operationId);
  const keyFor = (role: string) => (role === 'publishable' ? s.keys.publishable : s.keys.secret);

  it('has readOnly properties to probe (the spec marks them)', () => {
    expect(probes.length).toBeGreaterThan(0);
  });

  it.each(probes.map((p) => [p.path.join('.'), p] as const))(
    'refuses readOnly %s with 400 naming it; the body without it passes',
    async (_name, probe) => {
      const valid = requestFor(operationId, s.test, phi());
      const control = await s.t.request(inject(valid, keyFor(valid.role)));
      expect(control.status, control.text).toBe(200);

      const req = requestFor(operationId, s.test, phi());
      const body = withProperty(req.body ?? {}, probe.path, probe.value);
      const res = await s.t.request(inject({ ...req, body }, keyFor(req.role)));
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(['parameter_unknown', 'parameter_invalid']).toContain(res.body.error.code);
      expect(String(res.body.error.param)).toContain(String(probe.path.at(-1)));
    },
  );
});

describe('writeOnly properties are never returned', () => {
  it('every writeOnly property of a request body is probed below', () => {
    const withWriteOnly = writes.filter((r) => writeOnlyNames(r.operationId).length > 0);
    expect(withWriteOnly.map((r) => r.operationId).sort()).toEqual([
      'createAppointment',
      'createPatient',
      'createToken',
    ]);
  });

  it('createToken: the patient it carries is not in the answer', async () => {
    const p = phi();
    const req = requestFor('createToken', s.test, p);
    const res = await s.t.request(inject(req, s.keys.publishable));
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('patient');
    for (const value of Object.values(p)) expect(res.text).not.toContain(value);

    // createPatient from that token: the token is not echoed.
    const created = await s.t.request({
      method: 'POST',
      url: '/v1/patients',
      key: s.keys.secret,
      body: { token: res.body.id },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).not.toHaveProperty('token');
    expect(created.text).not.toContain(res.body.id);
  });

  it('createAppointment: confirm is not in the answer', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: s.keys.secret,
      body: {
        patient: s.test.pat,
        practitioner: 'Dr. Lee',
        start: 2_000_000_000,
        end: 2_000_001_800,
        confirm: true,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe('booked');
    expect(res.body).not.toHaveProperty('confirm');
  });
});
