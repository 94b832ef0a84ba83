/**
 * OWASP API3:2023 Broken Object Property Level Authorization. Generated from the spec: every
 * readOnly property of the object a write answers with, sent in that write's body, is refused
 * with 400 naming it (mass assignment: `livemode`, `amount_total`, `status`, `secret`, …),
 * while the same body without it passes; writeOnly properties are never returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../server/keys/store.js';
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

/**
 * An event carries its object whole (spec: Events tag), so `events:read` is not enough to
 * read it: a key sees an event only if it may read the object's resource. Listing filters;
 * asking for a family, or retrieving an event, the key may not read is 403 naming the scope.
 * Webhook deliveries read through the API carry no payload at all.
 */
describe('events show their object only to keys that may read it', () => {
  const SEEDED_NAMES = ['Seeded', 'Other'];
  const restricted = async (scopes: string[]) =>
    (await createKey(s.t.db, { kind: 'restricted', livemode: false, scopes })).secret;
  const list = async (key: string, query = '') => {
    const res = await s.t.request({ method: 'GET', url: `/v1/events?limit=100${query}`, key });
    expect(res.status, res.text).toBe(200);
    return res;
  };
  const typesOf = (res: { body: { data: Array<{ type: string }> } }) =>
    new Set(res.body.data.map((e) => e.type.slice(0, e.type.indexOf('.'))));

  it('events:read alone lists nothing and retrieves no patient event', async () => {
    const key = await restricted(['events:read']);
    const res = await list(key);
    expect(res.body.data).toEqual([]);
    const all = await list(s.keys.secret, '&type=patient.created');
    expect(all.body.data.length).toBeGreaterThan(0);
    const one = await s.t.request({
      method: 'GET',
      url: `/v1/events/${all.body.data[0].id}`,
      key,
    });
    expect(one.status, one.text).toBe(403);
    expect(one.body.error.code).toBe('insufficient_scope');
    expect(one.body.error.message).toContain('patients:read');
    for (const name of SEEDED_NAMES) expect(one.text).not.toContain(name);
  });

  it.each([
    ['patients:read', 'patient'],
    ['patients:write', 'patient'],
    ['appointments:read', 'appointment'],
    ['billing:read', 'claim'],
  ])('events:read + %s lists exactly the %s events', async (scope, family) => {
    const key = await restricted(['events:read', scope]);
    const res = await list(key);
    expect([...typesOf(res)]).toEqual([family]);
    const everything = await list(s.keys.secret);
    const expected = everything.body.data.filter((e: { type: string }) =>
      e.type.startsWith(`${family}.`),
    );
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual(
      expected.map((e: { id: string }) => e.id),
    );
    if (family !== 'patient') {
      for (const name of SEEDED_NAMES) expect(res.text).not.toContain(name);
    }
  });

  it('a type filter for a family the key may not read is 403 naming type; its own passes', async () => {
    const key = await restricted(['events:read', 'billing:read']);
    for (const type of ['patient.created', 'patient.*', 'appointment.created']) {
      const res = await s.t.request({ method: 'GET', url: `/v1/events?type=${type}`, key });
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.body.error.param).toBe('type');
    }
    const claims = await list(key, '&type=claim.*');
    expect(claims.body.data.length).toBeGreaterThan(0);
    expect([...typesOf(claims)]).toEqual(['claim']);
  });

  it('pages walk only the readable events', async () => {
    const key = await restricted(['events:read', 'appointments:read']);
    const first = await s.t.request({ method: 'GET', url: '/v1/events?limit=1', key });
    expect(first.body.has_more).toBe(true);
    const next = await s.t.request({
      method: 'GET',
      url: `/v1/events?limit=100&starting_after=${first.body.data[0].id}`,
      key,
    });
    expect([...typesOf(first), ...typesOf(next)].every((f) => f === 'appointment')).toBe(true);
    expect(first.body.data.length + next.body.data.length).toBe((await list(key)).body.data.length);
  });

  it.each([
    ['listEvents', () => '/v1/events'],
    ['retrieveEvent', () => `/v1/events/${s.test.evt}`],
    ['listWebhookDeliveries', () => `/v1/webhooks/${s.test.wh}/deliveries`],
  ])('an ephemeral key (one patient) gets 403 on %s', async (_op, url) => {
    const res = await s.t.request({ method: 'GET', url: url(), key: s.keys.ephemeral });
    expect(res.status, res.text).toBe(403);
    for (const name of SEEDED_NAMES) expect(res.text).not.toContain(name);
  });

  it('webhook deliveries name the event id and type, never its payload', async () => {
    const key = await restricted(['webhooks:read']);
    const res = await s.t.request({
      method: 'GET',
      url: `/v1/webhooks/${s.test.wh}/deliveries?limit=100`,
      key,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    for (const delivery of res.body.data) {
      expect(Object.keys(delivery).sort()).toEqual(
        [
          'attempt_count',
          'attempts',
          'created',
          'event',
          'event_type',
          'id',
          'livemode',
          'next_attempt',
          'object',
          'status',
          'webhook',
        ].sort(),
      );
    }
    for (const name of SEEDED_NAMES) expect(res.text).not.toContain(name);
  });
});
