import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';
import { makeExpiredKey, makeKey, makeRevokedKey, type TestKey } from '../support/keys.js';

let t: FixtureApp;
const k: Record<string, TestKey> = {};
const PATIENT = 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W';

beforeAll(async () => {
  t = await fixtureApp();
  k.secret = t.keys.secret;
  k.publishable = t.keys.publishable;
  k.read = t.keys.readOnly;
  k.write = await makeKey(t.db, { kind: 'restricted', scopes: ['patients:write'] });
  k.billing = await makeKey(t.db, { kind: 'restricted', scopes: ['billing:read'] });
  k.ephemeral = await makeKey(t.db, {
    kind: 'ephemeral',
    scopes: ['patients:read'],
    patientId: PATIENT,
    expiresInSeconds: 900,
  });
  k.expired = await makeExpiredKey(t.db);
  k.revoked = await makeRevokedKey(t.db);
  k.allowV4 = await makeKey(t.db, { allowedIps: ['10.0.0.0/8'] });
  k.allowV6 = await makeKey(t.db, {
    kind: 'restricted',
    scopes: ['patients:read'],
    allowedIps: ['2001:db8::/32'],
  });
});
afterAll(() => t.close());

type Op = { method: 'GET' | 'POST'; url: string; body?: unknown };
const OPS: Record<string, Op> = {
  listWidgets: { method: 'GET', url: '/v1/widgets' },
  createWidget: { method: 'POST', url: '/v1/widgets', body: { name: { family: 'A' } } },
  createToken: { method: 'POST', url: '/v1/tokens', body: { type: 'patient_intake' } },
  createEphemeralKey: { method: 'POST', url: '/v1/ephemeral_keys', body: {} },
  listEvents: { method: 'GET', url: '/v1/events' },
};

const call = (op: string, key?: string, extra: { remoteAddress?: string } = {}) =>
  t.request({ ...OPS[op]!, ...(key === undefined ? {} : { key }), ...extra });

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined, 'api_key_missing'],
    ['a key that is not a key', 'not-a-key', 'api_key_invalid'],
    ['an unknown key', 'sk_test_0000000000000000000000000000000000000000000', 'api_key_invalid'],
  ])('%s → 401', async (_label, key, code) => {
    const res = await call('listWidgets', key);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code });
  });

  it('a non-Bearer Authorization header → 401 api_key_invalid', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      headers: { authorization: `Basic ${Buffer.from('x:y').toString('base64')}` },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('api_key_invalid');
  });

  it('a revoked key is simply invalid; an expired key says so', async () => {
    expect((await call('listWidgets', k.revoked!.secret)).body.error.code).toBe('api_key_invalid');
    expect((await call('listWidgets', k.expired!.secret)).body.error.code).toBe('api_key_expired');
  });
});

// The matrix: each key kind × each fixture operation, from the route table's keyKinds/scopes.
const MATRIX: [key: string, op: string, status: number, code?: string][] = [
  ['secret', 'listWidgets', 200],
  ['secret', 'createWidget', 200],
  ['secret', 'createToken', 403, 'insufficient_scope'],
  ['secret', 'createEphemeralKey', 200],
  ['secret', 'listEvents', 200],
  ['read', 'listWidgets', 200],
  ['read', 'createWidget', 403, 'insufficient_scope'],
  ['read', 'createEphemeralKey', 403, 'secret_key_required'],
  ['read', 'listEvents', 403, 'insufficient_scope'],
  ['write', 'listWidgets', 200], // write implies read
  ['write', 'createWidget', 200],
  ['billing', 'listWidgets', 403, 'insufficient_scope'],
  ['publishable', 'listWidgets', 403, 'secret_key_required'],
  ['publishable', 'createWidget', 403, 'secret_key_required'],
  ['publishable', 'createToken', 200],
  ['publishable', 'listEvents', 403, 'secret_key_required'],
  ['ephemeral', 'listWidgets', 200],
  ['ephemeral', 'createWidget', 403, 'secret_key_required'],
  ['ephemeral', 'createEphemeralKey', 403, 'secret_key_required'],
  ['ephemeral', 'listEvents', 403, 'secret_key_required'],
];

describe('authorization matrix (key kinds and scopes from the route table)', () => {
  it.each(MATRIX)('%s key → %s: %i %s', async (key, op, status, code) => {
    const res = await call(op, k[key]!.secret);
    expect(res.status).toBe(status);
    if (code !== undefined) {
      expect(res.body.error).toMatchObject({ type: 'permission_error', code });
    }
  });

  it('names the scope that would allow the call', async () => {
    const res = await call('createWidget', k.read!.secret);
    expect(res.body.error.message).toContain('patients:write');
    const read = await call('listWidgets', k.billing!.secret);
    expect(read.body.error.message).toContain('patients:read');
    expect(read.body.error.message).toContain('patients:write');
  });

  it('audits refused calls by a known key, without PHI', async () => {
    const before = t.audit.entries.length;
    await call('createWidget', k.read!.secret);
    const entry = t.audit.entries.at(-1);
    expect(t.audit.entries.length).toBe(before + 1);
    expect(entry).toMatchObject({
      keyId: k.read!.id,
      operationId: 'createWidget',
      outcome: 'denied',
    });
  });
});

describe('IP allowlists', () => {
  it('allows addresses inside the v4 range, refuses others', async () => {
    expect(
      (await call('listWidgets', k.allowV4!.secret, { remoteAddress: '10.1.2.3' })).status,
    ).toBe(200);
    const out = await call('listWidgets', k.allowV4!.secret, { remoteAddress: '192.0.2.1' });
    expect(out.status).toBe(403);
    expect(out.body.error.code).toBe('ip_not_allowed');
  });

  it('matches IPv4-mapped IPv6 socket addresses as IPv4', async () => {
    const res = await call('listWidgets', k.allowV4!.secret, { remoteAddress: '::ffff:10.9.9.9' });
    expect(res.status).toBe(200);
  });

  it('handles v6 ranges', async () => {
    expect(
      (await call('listWidgets', k.allowV6!.secret, { remoteAddress: '2001:db8::1' })).status,
    ).toBe(200);
    expect(
      (await call('listWidgets', k.allowV6!.secret, { remoteAddress: '2001:db9::1' })).status,
    ).toBe(403);
  });

  it('ignores X-Forwarded-For unless a proxy is trusted', async () => {
    const res = await t.request({
      ...OPS.listWidgets!,
      key: k.allowV4!.secret,
      remoteAddress: '192.0.2.1',
      headers: { 'x-forwarded-for': '10.0.0.1' },
    });
    expect(res.status).toBe(403);
  });

  it('uses X-Forwarded-For from a trusted proxy', async () => {
    const proxied = await fixtureApp({ config: { trustProxy: '127.0.0.1' } });
    try {
      const key = await makeKey(proxied.db, { allowedIps: ['10.0.0.0/8'] });
      const via = (forwarded: string) =>
        proxied.request({
          ...OPS.listWidgets!,
          key: key.secret,
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': forwarded },
        });
      expect((await via('10.0.0.1')).status).toBe(200);
      expect((await via('192.0.2.1')).status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it('ip_not_allowed comes before the scope check', async () => {
    const key = await makeKey(t.db, {
      kind: 'restricted',
      scopes: ['billing:read'],
      allowedIps: ['10.0.0.0/8'],
    });
    const res = await call('listWidgets', key.secret, { remoteAddress: '192.0.2.1' });
    expect(res.body.error.code).toBe('ip_not_allowed');
  });
});

describe('modes', () => {
  it('a handler only sees the key mode: live keys do not see test widgets', async () => {
    const made = await call('createWidget', k.secret!.secret);
    expect(made.body.livemode).toBe(false);
    const live = await call('listWidgets', t.keys.live.secret);
    expect(live.status).toBe(200);
    expect(live.body.data.map((w: { id: string }) => w.id)).not.toContain(made.body.id);
    const test = await call('listWidgets', k.secret!.secret);
    expect(test.body.data.map((w: { id: string }) => w.id)).toContain(made.body.id);
  });
});
