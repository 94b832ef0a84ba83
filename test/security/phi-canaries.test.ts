/**
 * PHI canaries (docs/design.md#phi): a unique family name, given name, birth date, MRN and email go
 * through every operation — valid requests, and failing ones (bad bodies, wrong and
 * malformed keys, keys of the wrong kind, unknown ids, a 409 duplicate, PHI pasted into the
 * URL and query) — then none of them may appear in any log line of the app's pino output, in
 * any response header, in any URL the service writes (`url` of lists), in any error message
 * or param, or in any audit row (the table and the batched read sink). A positive control
 * shows the canaries did reach the store, so their absence elsewhere means something.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckedResponse, InjectRequest } from '../support/inject.js';
import { inject, type Phi, patientBody, requestFor } from './support/operations.js';
import {
  buildSecurityApp,
  keyedRoutes as routes,
  type SecurityApp,
} from './support/security-app.js';

const tag = randomBytes(5).toString('hex').toUpperCase();
const PHI: Phi = {
  family: `Zqxfam${tag}`,
  given: `Wvgiv${tag}`,
  birthDate: '1903-07-29',
  mrn: `MRN${tag}`,
  email: `canary${tag.toLowerCase()}@example.org`,
};
const CANARIES = Object.values(PHI);

let s: SecurityApp;
const responses: Array<{ what: string; res: CheckedResponse }> = [];

async function send(what: string, req: InjectRequest): Promise<CheckedResponse> {
  const res = await s.t.request(req);
  responses.push({ what, res });
  return res;
}

beforeAll(async () => {
  s = await buildSecurityApp();
  const keyFor = (role: string) => (role === 'publishable' ? s.keys.publishable : s.keys.secret);

  // Every operation, valid, carrying the canaries where the operation takes PHI.
  for (const route of routes) {
    if (route.operationId === 'deleteWebhook') continue; // runs last, it removes the endpoint
    const req = requestFor(route.operationId, s.test, PHI);
    await send(`${route.operationId} valid`, inject(req, keyFor(req.role)));
  }
  // A patient created with the canaries, then read, updated, listed and searched.
  const created = responses.find((r) => r.what === 'createPatient valid')!.res;
  const id = created.body.id as string;
  await send('retrieve canary patient', {
    method: 'GET',
    url: `/v1/patients/${id}`,
    key: s.keys.secret,
  });
  await send('update canary patient', {
    method: 'POST',
    url: `/v1/patients/${id}`,
    key: s.keys.secret,
    body: {
      name: { family: PHI.family, given: [PHI.given, PHI.given] },
      birth_date: PHI.birthDate,
    },
  });
  await send('ephemeral key for it', {
    method: 'POST',
    url: '/v1/ephemeral_keys',
    key: s.keys.secret,
    body: { patient: id, scopes: ['patients:read'] },
  });

  // Failing requests carrying the canaries.
  const body = patientBody(PHI);
  await send('409 duplicate MRN', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body,
  });
  await send('400 unknown field', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    // The value, not the name: `param` names an unknown property by design (see README).
    body: { ...body, nickname: PHI.family, mrn: PHI.mrn },
  });
  await send('400 bad birth_date', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body: { ...body, birth_date: `${PHI.birthDate}x`, email: PHI.family },
  });
  await send('400 bad enum', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body: { ...body, gender: PHI.given },
  });
  await send('400 too long', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body: { ...body, name: { family: PHI.family.repeat(50) } },
  });
  await send('400 broken JSON', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    payload: `{"name":{"family":"${PHI.family}","given":["${PHI.given}"]`,
    headers: { 'content-type': 'application/json' },
  });
  await send('415 text body', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    payload: `${PHI.family} ${PHI.birthDate}`,
    headers: { 'content-type': 'text/plain' },
  });
  await send('400 search bad field', {
    method: 'POST',
    url: '/v1/patients/search',
    key: s.keys.secret,
    body: { family_name: PHI.family, dob: PHI.birthDate },
  });
  await send('400 search bad date', {
    method: 'POST',
    url: '/v1/patients/search',
    key: s.keys.secret,
    body: { birth_date: PHI.mrn },
  });
  await send('400 token bad body', {
    method: 'POST',
    url: '/v1/tokens',
    key: s.keys.publishable,
    body: { type: 'patient_intake', patient: { ...body, ssn: PHI.mrn } },
  });
  await send('400 token_invalid', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body: { token: `tok_${PHI.family}` },
  });
  await send('401 no key', { method: 'POST', url: '/v1/patients', body });
  await send('401 bad key', { method: 'POST', url: '/v1/patients', key: 'sk_test_wrong', body });
  await send('401 canary as key', {
    method: 'GET',
    url: '/v1/patients',
    key: `sk_test_${PHI.mrn}`,
  });
  await send('403 publishable', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.publishable,
    body,
  });
  await send('403 ephemeral search', {
    method: 'POST',
    url: '/v1/patients/search',
    key: s.keys.ephemeral,
    body: { family_name: PHI.family },
  });
  await send('404 unknown id', {
    method: 'POST',
    url: '/v1/patients/pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
    key: s.keys.secret,
    body: { name: { family: PHI.family } },
  });
  await send('400 PHI in the path', {
    method: 'GET',
    url: `/v1/patients/${PHI.family}`,
    key: s.keys.secret,
  });
  await send('400 PHI in the query', {
    method: 'GET',
    url: `/v1/patients?family=${PHI.family}&birth_date=${PHI.birthDate}`,
    key: s.keys.secret,
  });
  await send('404 PHI in an unknown route', {
    method: 'GET',
    url: `/v1/${PHI.mrn}`,
    key: s.keys.secret,
  });
  await send('400 idempotency reuse', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body: { name: { family: PHI.given } },
    idempotencyKey: 'canary-reuse',
  });
  await send('400 idempotency reuse, other body', {
    method: 'POST',
    url: '/v1/patients',
    key: s.keys.secret,
    body: { name: { family: PHI.family } },
    idempotencyKey: 'canary-reuse',
  });
  await send('deleteWebhook valid', inject(requestFor('deleteWebhook', s.test), s.keys.secret));
});
afterAll(() => s.close());

function leaks(text: string): string[] {
  return CANARIES.filter((c) => text.includes(c));
}

describe('PHI canaries', () => {
  it('went through every operation, failing ones included', () => {
    const ops = new Set(responses.map((r) => r.res.operationId));
    for (const route of routes) expect(ops).toContain(route.operationId);
    const statuses = new Set(responses.map((r) => r.res.status));
    for (const status of [200, 400, 401, 403, 404, 409, 415]) expect(statuses).toContain(status);
  });

  it('reached the store (positive control): search finds the canary patient', async () => {
    const res = await s.t.request({
      method: 'POST',
      url: '/v1/patients/search',
      key: s.keys.secret,
      body: { family_name: PHI.family, birth_date: PHI.birthDate },
    });
    expect(res.body.data).toHaveLength(1);
    expect(res.text).toContain(PHI.mrn);
  });

  it('appear in no log line', () => {
    expect(s.logs.length).toBeGreaterThan(responses.length);
    for (const line of s.logs) expect(leaks(line), line).toEqual([]);
  });

  it('appear in no response header', () => {
    for (const { what, res } of responses) {
      expect(leaks(JSON.stringify(res.headers)), what).toEqual([]);
    }
  });

  it('appear in no error message or param', () => {
    for (const { what, res } of responses) {
      if (res.status < 400) continue;
      const { message, param } = res.body.error as { message: string; param: string | null };
      expect(leaks(`${message} ${param ?? ''}`), `${what}: ${message}`).toEqual([]);
    }
  });

  it('appear in no URL the service writes (list url fields)', () => {
    for (const { what, res } of responses) {
      const url = (res.body as { url?: unknown } | undefined)?.url;
      if (typeof url === 'string' && res.body.object === 'list')
        expect(leaks(url), what).toEqual([]);
    }
  });

  it('appear in no audit row, written or batched', async () => {
    const rows = await s.t.db.all('SELECT * FROM audit_log');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(leaks(JSON.stringify(row))).toEqual([]);
    // Object indexes: per batch since migration 0002, per entry before it.
    const indexed = await s.t.db.all('SELECT * FROM audit_batch_objects');
    expect(indexed.length).toBeGreaterThan(0);
    const legacy = await s.t.db.all('SELECT * FROM audit_objects');
    for (const row of [...indexed, ...legacy]) expect(leaks(JSON.stringify(row))).toEqual([]);
    expect(s.t.audit.entries.length).toBeGreaterThan(0);
    for (const entry of s.t.audit.entries) expect(leaks(JSON.stringify(entry))).toEqual([]);
  });
});
