/**
 * The OWASP attacks of this suite that apply to the FHIR R4 face (`/fhir/R4`,
 * docs/design.md#fhir-r4), on every FHIR operation of the route table (checked complete):
 * API2 broken authentication (malformed headers, keys of another prefix, keys outside the
 * header: 401, never echoing the key), API1 object level authorization (mode isolation: the
 * other mode's ids read as 404 exactly like ids that never existed, searches show nothing of
 * the other mode), API5 function level authorization (a restricted key with every scope runs
 * every FHIR operation; with no scope, or a publishable or ephemeral key, none). Every answer
 * is an OperationOutcome checked against the spec by the injector, never the /v1 envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../server/keys/store.js';
import { advanceClaim } from '../../server/webhooks/clearinghouse.js';
import type { OperationRequest } from './support/operations.js';
import {
  allRoutes,
  buildSecurityApp,
  type SecurityApp,
  type SeededIds,
} from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
  // A ClaimResponse exists once the test clearinghouse answered (live claims wait for a real one).
  s.t.clock.now += 5000;
  await advanceClaim(s.t.db, s.test.clm, s.t.clock.now);
});
afterAll(() => s.close());

const fhirId = (id: string) => id.replace('_', '-');

/** The FHIR operations that take a key (every one but the public `metadata`). */
const fhirRoutes = allRoutes.filter((r) => r.path.startsWith('/fhir/') && r.public !== true);

/** A valid request for each keyed FHIR operation, naming the objects seeded in `ids`' mode. */
function fhirRequest(operationId: string, ids: SeededIds): OperationRequest {
  const get = (url: string): OperationRequest => ({ method: 'GET', url, role: 'secret' });
  switch (operationId) {
    case 'searchFhirPatients':
      return get(`/fhir/R4/Patient?_id=${fhirId(ids.pat)}`);
    case 'createFhirPatient':
      return {
        method: 'POST',
        url: '/fhir/R4/Patient',
        body: { resourceType: 'Patient', name: [{ family: 'Fhirmade' }] },
        role: 'secret',
      };
    case 'readFhirPatient':
      return get(`/fhir/R4/Patient/${fhirId(ids.pat)}`);
    case 'searchFhirPractitioners':
      return get(`/fhir/R4/Practitioner?_id=${fhirId(ids.prac)}`);
    case 'readFhirPractitioner':
      return get(`/fhir/R4/Practitioner/${fhirId(ids.prac)}`);
    case 'searchFhirAppointments':
      return get(`/fhir/R4/Appointment?patient=Patient/${fhirId(ids.pat)}`);
    case 'readFhirAppointment':
      return get(`/fhir/R4/Appointment/${fhirId(ids.appt)}`);
    case 'searchFhirClaims':
      return get(`/fhir/R4/Claim?patient=${fhirId(ids.pat)}`);
    case 'readFhirClaim':
      return get(`/fhir/R4/Claim/${fhirId(ids.clm)}`);
    case 'searchFhirClaimResponses':
      return get(`/fhir/R4/ClaimResponse?request=Claim/${fhirId(ids.clm)}`);
    case 'readFhirClaimResponse':
      return get(`/fhir/R4/ClaimResponse/${fhirId(ids.clm)}`);
    // A type search by POST may carry its parameters in the URL too (and an empty body).
    case 'searchFhirPatientsByPost':
      return { ...get(`/fhir/R4/Patient/_search?_id=${fhirId(ids.pat)}`), method: 'POST' };
    case 'searchFhirPractitionersByPost':
      return { ...get(`/fhir/R4/Practitioner/_search?_id=${fhirId(ids.prac)}`), method: 'POST' };
    case 'searchFhirAppointmentsByPost':
      return {
        ...get(`/fhir/R4/Appointment/_search?patient=Patient/${fhirId(ids.pat)}`),
        method: 'POST',
      };
    case 'searchFhirClaimsByPost':
      return { ...get(`/fhir/R4/Claim/_search?patient=${fhirId(ids.pat)}`), method: 'POST' };
    case 'searchFhirClaimResponsesByPost':
      return {
        ...get(`/fhir/R4/ClaimResponse/_search?request=Claim/${fhirId(ids.clm)}`),
        method: 'POST',
      };
    default:
      throw new Error(`no valid FHIR request known for ${operationId}: add it here`);
  }
}

function send(req: OperationRequest, key: string | null, headers: Record<string, string> = {}) {
  return s.t.request({
    method: req.method,
    url: req.url,
    ...(key === null ? {} : { key }),
    ...(req.body === undefined
      ? {}
      : { body: req.body, headers: { 'content-type': 'application/fhir+json', ...headers } }),
    ...(req.body === undefined ? { headers } : {}),
  });
}

/** An OperationOutcome sent as FHIR JSON, never the /v1 envelope. */
function expectOutcome(res: { headers: Record<string, unknown>; body: unknown }) {
  expect(String(res.headers['content-type'])).toMatch(/^application\/fhir\+json/);
  const body = res.body as { resourceType?: unknown; error?: unknown };
  expect(body.resourceType).toBe('OperationOutcome');
  expect(body.error).toBeUndefined();
}

/** The secret part of a key after its `sk_test_` style prefix. */
const secretPart = (key: string) => key.replace(/^[a-z]+_(test|live)_/, '');

describe('the table is complete', () => {
  it('has a valid request for every keyed FHIR operation, answered 2xx with the secret key', async () => {
    expect(fhirRoutes.length).toBe(16);
    for (const route of fhirRoutes) {
      const res = await send(fhirRequest(route.operationId, s.test), s.keys.secret);
      expect(res.status, `${route.operationId}: ${res.text}`).toBeLessThan(300);
      expect(res.status, route.operationId).toBeGreaterThanOrEqual(200);
    }
  });
});

describe('API2: broken authentication on every FHIR operation → 401 OperationOutcome', () => {
  const headers: Array<[string, () => string | undefined]> = [
    ['no Authorization', () => undefined],
    ['the scheme alone', () => 'Bearer'],
    [
      'Basic with the key as user',
      () => `Basic ${Buffer.from(`${s.keys.secret}:`).toString('base64')}`,
    ],
    ['a truncated key', () => `Bearer ${s.keys.secret.slice(0, -1)}`],
    ['the secret under rk_test_', () => `Bearer rk_test_${secretPart(s.keys.secret)}`],
    ['the secret under sk_live_', () => `Bearer sk_live_${secretPart(s.keys.secret)}`],
    ['a 10 kB key', () => `Bearer sk_test_${'A'.repeat(10_000)}`],
  ];
  it.each(headers)('%s', async (_name, header) => {
    const value = header();
    for (const route of fhirRoutes) {
      const res = await send(
        fhirRequest(route.operationId, s.test),
        null,
        value === undefined ? {} : { authorization: value },
      );
      expect(res.status, `${route.operationId}: ${res.text}`).toBe(401);
      expectOutcome(res);
      expect(res.text).not.toContain(secretPart(s.keys.secret));
    }
  });

  it('a key in the query string or X-Api-Key is no key', async () => {
    for (const route of fhirRoutes) {
      const req = fhirRequest(route.operationId, s.test);
      const sep = req.url.includes('?') ? '&' : '?';
      const inQuery = await send({ ...req, url: `${req.url}${sep}api_key=${s.keys.secret}` }, null);
      expect(inQuery.status, route.operationId).toBe(401);
      expectOutcome(inQuery);
      const inHeader = await send(req, null, { 'x-api-key': s.keys.secret });
      expect(inHeader.status, route.operationId).toBe(401);
      expect(inHeader.text).not.toContain(secretPart(s.keys.secret));
    }
  });
});

describe('API1: mode isolation on the FHIR face', () => {
  const reads = () => fhirRoutes.filter((r) => r.path.includes('{id}'));

  it('the other mode’s ids read as 404, answered exactly like an id that never existed', async () => {
    expect(reads().length).toBe(5);
    for (const route of reads()) {
      // Test objects (each reads 200 with the test key: the completeness test) seen live.
      const other = await send(fhirRequest(route.operationId, s.test), s.keys.live);
      const never = await send(
        fhirRequest(route.operationId, {
          ...s.test,
          pat: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
          prac: 'prac_01JD7X5K8M9N2P3Q4R5S6T7V8W',
          appt: 'appt_01JD7X5K8M9N2P3Q4R5S6T7V8W',
          clm: 'clm_01JD7X5K8M9N2P3Q4R5S6T7V8W',
        }),
        s.keys.live,
      );
      expect(other.status, route.operationId).toBe(404);
      expectOutcome(other);
      expect(other.body, route.operationId).toEqual(never.body);
      // And the other way: the test key does not see live objects.
      const fromTest = await send(fhirRequest(route.operationId, s.live), s.keys.secret);
      expect(fromTest.status, route.operationId).toBe(404);
    }
  });

  it('searches naming the other mode’s objects find nothing', async () => {
    for (const route of fhirRoutes.filter((r) => r.operationId.startsWith('searchFhir'))) {
      const own = await send(fhirRequest(route.operationId, s.test), s.keys.secret);
      expect(own.status, route.operationId).toBe(200);
      expect(own.body.entry.length, `${route.operationId} (positive control)`).toBeGreaterThan(0);
      const other = await send(fhirRequest(route.operationId, s.test), s.keys.live);
      expect(other.status, route.operationId).toBe(200);
      expect(other.body.entry, route.operationId).toEqual([]);
    }
  });
});

describe('API5: function level authorization on the FHIR face', () => {
  it('a restricted key with every scope runs every FHIR operation', async () => {
    for (const route of fhirRoutes) {
      const res = await send(fhirRequest(route.operationId, s.test), s.keys.restrictedAll);
      expect(res.status, `${route.operationId}: ${res.text}`).toBeLessThan(300);
    }
  });

  it('a restricted key with only an unrelated scope, a publishable key and an ephemeral key run none', async () => {
    // A restricted key needs at least one scope; webhooks:read grants nothing on the FHIR face.
    const none = (
      await createKey(s.t.db, {
        nowMs: s.t.clock.now,
        kind: 'restricted',
        livemode: false,
        scopes: ['webhooks:read'],
      })
    ).secret;
    for (const route of fhirRoutes) {
      const req = fhirRequest(route.operationId, s.test);
      for (const [name, key] of [
        ['webhooks:read only', none],
        ['publishable', s.keys.publishable],
        ['ephemeral', s.keys.ephemeral],
      ] as const) {
        const res = await send(req, key);
        expect(res.status, `${route.operationId} with ${name}: ${res.text}`).toBe(403);
        expectOutcome(res);
      }
    }
  });
});
