/**
 * OWASP API1:2023 Broken Object Level Authorization. The auth matrix already shows a live key
 * gets 404 for test objects on every `{id}` route; this adds the other direction, ids passed
 * inside bodies and query strings, that an other-mode id answers exactly like an id that never
 * existed (no existence oracle), and an ephemeral key against its patient's neighbours: 403 on
 * every route ephemeral keys may call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildSecurityApp,
  claimBody,
  idPrefix,
  LATEST,
  routes,
  type SecurityApp,
} from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

const idRoutes = routes.filter((r) => idPrefix(r) !== undefined);
const PREFIX_TO_SEED = {
  pat: 'pat',
  prac: 'prac',
  appt: 'appt',
  clm: 'clm',
  wh: 'wh',
  evt: 'evt',
} as const;

function urlWith(path: string, id: string): string {
  return path.replace('{id}', id);
}

/** The error without its request id, to compare two answers. */
function errorShape(body: { error: Record<string, unknown> }): Record<string, unknown> {
  const { request_id: _ignored, ...rest } = body.error;
  return rest;
}

describe.each(idRoutes.map((r) => [r.operationId, r] as const))('%s', (_op, route) => {
  const prefix = idPrefix(route) as keyof typeof PREFIX_TO_SEED;

  it('a test key (secret and restricted) gets 404 for the live object, as for an unknown id', async () => {
    const liveId = s.live[PREFIX_TO_SEED[prefix]];
    const unknownId = `${prefix}_01JD7X5K8M9N2P3Q4R5S6T7V8W`;
    const body = route.schemas.body === undefined ? {} : { body: {} };
    for (const key of [s.keys.secret, s.keys.restrictedAll]) {
      const other = await s.t.request({
        method: route.method,
        url: urlWith(route.path, liveId),
        key,
        ...body,
      });
      const unknown = await s.t.request({
        method: route.method,
        url: urlWith(route.path, unknownId),
        key,
        ...body,
      });
      expect(other.status, other.text).toBe(404);
      expect(other.body.error.code).toBe('resource_missing');
      expect(errorShape(other.body)).toEqual(errorShape(unknown.body));
      expect(other.text).not.toContain(liveId);
    }
  });
});

describe('ids of the other mode inside bodies and queries', () => {
  it.each([
    [
      'createAppointment',
      '/v1/appointments',
      () => ({ patient: s.live.pat, practitioner: 'Dr. Lee' }),
    ],
    ['submitClaim', '/v1/claims', () => claimBody(s.live.pat)],
    [
      'createEphemeralKey',
      '/v1/ephemeral_keys',
      () => ({ patient: s.live.pat, scopes: ['patients:read'] }),
    ],
  ] as const)(
    '%s naming a live patient with a test key → 404 param patient',
    async (_op, url, body) => {
      const res = await s.t.request({ method: 'POST', url, key: s.keys.secret, body: body() });
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.param).toBe('patient');
    },
  );

  it('submitClaim naming a live appointment → 404 param appointment', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/claims',
      key: s.keys.secret,
      body: { ...claimBody(s.test.pat), appointment: s.live.appt },
    });
    expect(res.status, res.text).toBe(404);
    expect(res.body.error.param).toBe('appointment');
  });

  it('createAppointment naming a live practitioner → 404 param practitioner_id', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: s.keys.secret,
      headers: LATEST,
      body: { patient: s.test.pat, practitioner: 'Dr. Lee', practitioner_id: s.live.prac },
    });
    expect(res.status, res.text).toBe(404);
    expect(res.body.error.param).toBe('practitioner_id');
    expect(res.text).not.toContain(s.live.prac);
  });

  it('listAppointments filtered on a live practitioner shows nothing of it', async () => {
    const own = await s.t.request({
      method: 'GET',
      url: `/v1/appointments?practitioner_id=${s.test.prac}`,
      key: s.keys.secret,
      headers: LATEST,
    });
    expect(own.body.data.length, 'positive control').toBeGreaterThan(0);
    const res = await s.t.request({
      method: 'GET',
      url: `/v1/appointments?practitioner_id=${s.live.prac}`,
      key: s.keys.secret,
      headers: LATEST,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('listAppointments filtered on a live patient shows nothing of it', async () => {
    const res = await s.t.request({
      method: 'GET',
      url: `/v1/appointments?patient=${s.live.pat}`,
      key: s.keys.secret,
    });
    if (res.status === 200) expect(res.body.data).toEqual([]);
    else expect(res.status).toBe(404);
  });

  it('cursors of the other mode do not page into it', async () => {
    for (const url of [
      `/v1/patients?starting_after=${s.live.pat}`,
      `/v1/patients?ending_before=${s.live.pat}`,
    ]) {
      const res = await s.t.request({ method: 'GET', url, key: s.keys.secret });
      if (res.status === 200) {
        expect(res.body.data.every((p: { livemode: boolean }) => !p.livemode)).toBe(true);
      } else expect(res.status).toBe(400);
    }
  });
});

// Each route an ephemeral key may call, aimed at the other patient of the same mode.
const OTHER_PATIENT: Record<string, () => { method: 'GET' | 'POST'; url: string; body?: unknown }> =
  {
    retrievePatient: () => ({ method: 'GET', url: `/v1/patients/${s.test.pat2}` }),
    listAppointments: () => ({ method: 'GET', url: `/v1/appointments?patient=${s.test.pat2}` }),
    retrieveAppointment: () => ({ method: 'GET', url: `/v1/appointments/${s.test.appt2}` }),
    createAppointment: () => ({
      method: 'POST',
      url: '/v1/appointments',
      body: { patient: s.test.pat2, practitioner: 'Dr. Lee' },
    }),
  };

describe('an ephemeral key and the other patients', () => {
  const ephemeralRoutes = routes.filter((r) => r.keyKinds?.includes('ephemeral'));

  it('every route ephemeral keys may call is probed', () => {
    expect(ephemeralRoutes.map((r) => r.operationId).sort()).toEqual(
      Object.keys(OTHER_PATIENT).sort(),
    );
  });

  it.each(Object.keys(OTHER_PATIENT))(
    '%s for another patient → 403 insufficient_scope',
    async (op) => {
      const res = await s.t.request({ ...OTHER_PATIENT[op]!(), key: s.keys.ephemeral });
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.text).not.toContain(s.test.pat2);
    },
  );

  it('an unfiltered appointment list holds only its own patient', async () => {
    const res = await s.t.request({
      method: 'GET',
      url: '/v1/appointments?limit=100',
      key: s.keys.ephemeral,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((a: { patient: string }) => a.patient === s.test.pat)).toBe(true);
  });

  it('the other mode is 404 for it, even its own patient id shape', async () => {
    const res = await s.t.request({
      method: 'GET',
      url: `/v1/patients/${s.live.pat}`,
      key: s.keys.ephemeral,
    });
    expect([403, 404]).toContain(res.status);
    expect(res.text).not.toContain('Seeded');
  });
});
