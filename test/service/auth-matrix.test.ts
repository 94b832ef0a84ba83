/**
 * The auth matrix: every operation of the generated route table × every kind
 * of caller. Driven by `routes`, so a new operation is covered without touching this file; what
 * each operation allows comes from its `x-key-kinds` and `x-scopes`, the same data the server
 * enforces, and the expectations are the spec's (401 before 403, scope named in the message,
 * write implies read, other-mode objects 404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../contract/route-types.js';
import { routes as allRoutes, componentSchemas } from '../../generated/routes.js';
import { eventFamily, eventFamilyScope } from '../../server/domain/event-visibility.js';
import { type FhirResourceType, ID_PREFIXES, toFhirId } from '../../server/fhir/ids.js';
import { ALL_SCOPES } from '../../server/keys/index.js';
import { createKey, revokeKey } from '../../server/keys/store.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { claimBody } from '../support/bodies.js';
import type { InjectRequest } from '../support/inject.js';
import { LOCAL_HOOK_URL } from './support/fixtures.js';

// The public health probes (`security: []`) take no key; test/http/health.test.ts covers them.
const routes = allRoutes.filter((route) => route.public !== true);

let t: TestApp;
const keys: Record<string, string> = {};
/** The scope that reads the object of the seeded event `testIds.evt`. */
let evtObjectScope: string | undefined;
/** A test-mode object id per id prefix (`pat`, `wh`, `evt`, …). */
const testIds: Record<string, string | undefined> = {};

/**
 * The id prefix a route's `{id}` takes, read from its component schema's pattern; a FHIR
 * route's from its resource type (its `{id}` is a FHIR id, `pat-…`).
 */
function idPrefix(route: RouteDefinition): string | undefined {
  const fhir = /^\/fhir\/R4\/([A-Za-z]+)\/\{id\}$/.exec(route.path);
  if (fhir !== null) return ID_PREFIXES[fhir[1] as FhirResourceType];
  const ref = (route.schemas.params?.properties as Record<string, { $ref?: string }> | undefined)
    ?.id?.$ref;
  if (ref === undefined) return undefined;
  const schema = componentSchemas.find((s) => s.$id === ref);
  return /^\^([a-z]+)_/.exec(String(schema?.pattern))?.[1];
}

/** A request the route accepts up to its operation (auth, route, then maybe 400/404). */
function requestFor(route: RouteDefinition, key?: string): InjectRequest {
  const prefix = idPrefix(route);
  const id =
    prefix === undefined ? undefined : (testIds[prefix] ?? `${prefix}_01JD7X5K8M9N2P3Q4R5S6T7V8W`);
  const url = route.path.replace(
    '{id}',
    id === undefined ? '' : route.path.startsWith('/fhir/') ? toFhirId(id) : id,
  );
  return {
    method: route.method,
    url,
    ...(key === undefined ? {} : { key }),
    ...(route.schemas.body === undefined ? {} : { body: {} }),
  };
}

async function key(name: string, options: Parameters<typeof createKey>[1]): Promise<void> {
  keys[name] = (await createKey(t.db, { nowMs: t.clock.now, ...options })).secret;
}

/** A scope that neither is nor implies any of `scopes` (write implies read). */
function unrelatedScope(scopes: readonly string[]): string {
  const resources = new Set(scopes.map((s) => s.split(':')[0]));
  return ALL_SCOPES.find((s) => !resources.has(s.split(':')[0]))!;
}

beforeAll(async () => {
  t = await buildTestApp();
  const now = t.clock.now;
  await key('secret', { kind: 'secret', livemode: false });
  await key('live', { kind: 'secret', livemode: true });
  await key('publishable', { kind: 'publishable', livemode: false });
  await key('expired', {
    kind: 'secret',
    livemode: false,
    nowMs: now - 2 * 3600_000,
    expiresInSeconds: 3600,
  });
  const revoked = await createKey(t.db, { kind: 'secret', livemode: false, nowMs: now });
  await revokeKey(t.db, revoked.key.id, now - 1000);
  keys.revoked = revoked.secret;
  await key('allowlisted', { kind: 'secret', livemode: false, allowedIps: ['10.0.0.0/8'] });

  // Test-mode objects, so "live key on test data" asks for ids that exist.
  const make = async (url: string, body: unknown) => {
    const res = await t.request({ method: 'POST', url, key: keys.secret!, body });
    return res.status === 200 ? (res.body.id as string) : undefined;
  };
  testIds.pat = await make('/v1/patients', { name: { family: 'Matrix' } });
  testIds.wh = await make('/v1/webhooks', { url: LOCAL_HOOK_URL, enabled_events: ['*'] });
  testIds.appt = await make('/v1/appointments', { patient: testIds.pat, practitioner: 'Dr. Lee' });
  testIds.prac = await make('/v1/practitioners', {
    name: { family: 'Matrix' },
    npi: '1234567893',
    specialty: '207Q00000X',
  });
  testIds.clm = await make('/v1/claims', claimBody(testIds.pat!));
  const events = await t.request({ method: 'GET', url: '/v1/events', key: keys.secret! });
  testIds.evt = events.body.data?.[0]?.id;
  evtObjectScope = eventFamilyScope(eventFamily(String(events.body.data?.[0]?.type)));
  const ek = await t.request({
    method: 'POST',
    url: '/v1/ephemeral_keys',
    key: keys.secret!,
    body: {
      patient: testIds.pat,
      scopes: ['patients:read', 'appointments:read', 'appointments:write'],
    },
  });
  keys.ephemeral = ek.body.secret;
});

afterAll(async () => {
  await t.close();
});

/** An error body of either face: the `/v1` envelope or a FHIR OperationOutcome. */
interface ErrorBody {
  error?: { code?: string; message?: string };
  issue?: { diagnostics?: string; details?: { coding?: { code?: string }[] } }[];
}

/** The `/v1` error code of an answer: the envelope's, or an OperationOutcome's `details`. */
function errorCode(res: { body: ErrorBody | undefined }): string | undefined {
  return res.body?.error?.code ?? res.body?.issue?.[0]?.details?.coding?.[0]?.code;
}

/** The error message of an answer: the envelope's, or an OperationOutcome's `diagnostics`. */
function errorMessage(res: { body: ErrorBody | undefined }): string | undefined {
  return res.body?.error?.message ?? res.body?.issue?.[0]?.diagnostics;
}

/** Passed authentication and authorisation: whatever the operation then answers. */
function expectAuthorised(status: number, text: string): void {
  expect(status, text).not.toBe(401);
  expect(status, text).not.toBe(403);
}

describe.each(routes.map((r) => [r.operationId, r] as const))('%s', (_id, route) => {
  const kinds = route.keyKinds ?? ['secret', 'restricted'];

  it('no key → 401 api_key_missing', async () => {
    const res = await t.request(requestFor(route));
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('api_key_missing');
  });

  it('malformed or unknown key → 401 api_key_invalid', async () => {
    for (const bad of ['not-a-key', 'sk_test_0000000000000000000000000000']) {
      const res = await t.request(requestFor(route, bad));
      expect(res.status).toBe(401);
      expect(errorCode(res)).toBe('api_key_invalid');
    }
  });

  it('revoked key → 401 api_key_invalid; expired key → 401 api_key_expired', async () => {
    const revoked = await t.request(requestFor(route, keys.revoked));
    expect(errorCode(revoked)).toBe('api_key_invalid');
    const expired = await t.request(requestFor(route, keys.expired));
    expect(errorCode(expired)).toBe('api_key_expired');
  });

  it('secret key: allowed exactly when the operation lists it', async () => {
    const res = await t.request(requestFor(route, keys.secret));
    if (kinds.includes('secret')) expectAuthorised(res.status, res.text);
    else expect(res.status).toBe(403);
  });

  it('publishable key: allowed only where listed, otherwise 403', async () => {
    const res = await t.request(requestFor(route, keys.publishable));
    if (kinds.includes('publishable')) expectAuthorised(res.status, res.text);
    else {
      expect(res.status).toBe(403);
      expect(['secret_key_required', 'insufficient_scope']).toContain(errorCode(res));
    }
  });

  it('ephemeral key: allowed only where listed, otherwise 403', async () => {
    const res = await t.request(requestFor(route, keys.ephemeral));
    if (kinds.includes('ephemeral')) expectAuthorised(res.status, res.text);
    else expect(res.status).toBe(403);
  });

  it('restricted key in scope (and write implying read) passes; out of scope is 403 naming the scope', async () => {
    const scopes = route.scopes.length > 0 ? route.scopes : [unrelatedScope([])];
    // An event is readable only with its object's scope as well (spec: Events tag).
    const objectScopes =
      route.operationId === 'retrieveEvent' && evtObjectScope ? [evtObjectScope] : [];
    const inScope = await createKey(t.db, {
      kind: 'restricted',
      livemode: false,
      scopes: [...scopes, ...objectScopes],
    });
    const res = await t.request(requestFor(route, inScope.secret));
    if (!kinds.includes('restricted')) {
      expect(res.status).toBe(403);
      return;
    }
    expectAuthorised(res.status, res.text);

    // Write implies read, where the resource has a write scope (`events` has none).
    const writeScopes = route.scopes.map((s) => s.replace(/:read$/, ':write'));
    if (writeScopes.every((s) => (ALL_SCOPES as readonly string[]).includes(s))) {
      const writer = await createKey(t.db, {
        kind: 'restricted',
        livemode: false,
        scopes: [...writeScopes, ...objectScopes],
      });
      const viaWrite = await t.request(requestFor(route, writer.secret));
      expectAuthorised(viaWrite.status, viaWrite.text);
    }

    const outOfScope = await createKey(t.db, {
      kind: 'restricted',
      livemode: false,
      scopes: [unrelatedScope(route.scopes)],
    });
    const denied = await t.request(requestFor(route, outOfScope.secret));
    expect(denied.status).toBe(403);
    expect(errorCode(denied)).toBe('insufficient_scope');
    for (const scope of route.scopes) expect(errorMessage(denied)).toContain(scope);
  });

  it('IP allowlist: inside passes, outside is 403 ip_not_allowed', async () => {
    const inside = await t.request({
      ...requestFor(route, keys.allowlisted),
      remoteAddress: '10.1.2.3',
    });
    const outside = await t.request({
      ...requestFor(route, keys.allowlisted),
      remoteAddress: '192.0.2.7',
    });
    expect(outside.status).toBe(403);
    expect(errorCode(outside)).toBe('ip_not_allowed');
    if (kinds.includes('secret')) expectAuthorised(inside.status, inside.text);
    else expect(errorCode(inside)).not.toBe('ip_not_allowed');
  });

  it('live key on test data: other-mode objects are invisible', async () => {
    const res = await t.request(requestFor(route, keys.live));
    const prefix = idPrefix(route);
    if (!kinds.includes('secret')) {
      expect(res.status).toBe(403);
      return;
    }
    if (prefix !== undefined) {
      // The id exists in test mode; seeding it must have worked for the check to mean anything.
      expect(testIds[prefix], `no test-mode ${prefix}_ object was created`).toBeDefined();
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe('resource_missing');
      return;
    }
    expectAuthorised(res.status, res.text);
    if (route.method === 'GET' && res.status === 200 && route.path.startsWith('/fhir/')) {
      expect(res.body.resourceType).toBe('Bundle');
      expect(res.body.entry).toEqual([]);
    } else if (route.method === 'GET' && res.status === 200) {
      expect(res.body.object).toBe('list');
      expect(res.body.data.filter((o: { livemode: boolean }) => !o.livemode)).toEqual([]);
    }
  });
});

// Operations that need a write scope, callable by restricted keys: the read scope is not enough.
const writeRoutes = routes.filter(
  (r) =>
    (r.keyKinds ?? ['restricted']).includes('restricted') &&
    r.scopes.some((s) => s.endsWith(':write')),
);

describe.each(writeRoutes.map((r) => [r.operationId, r] as const))('%s', (_id, route) => {
  it('a read scope does not allow the write: 403 insufficient_scope', async () => {
    const reader = await createKey(t.db, {
      kind: 'restricted',
      livemode: false,
      scopes: route.scopes.map((s) => s.replace(/:write$/, ':read')),
    });
    const res = await t.request(requestFor(route, reader.secret));
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe('insufficient_scope');
  });
});

it('the matrix covers every operation of the route table', () => {
  expect(routes.length).toBeGreaterThanOrEqual(20);
  expect(writeRoutes.length).toBeGreaterThanOrEqual(8);
  expect(new Set(routes.map((r) => r.operationId)).size).toBe(routes.length);
});
