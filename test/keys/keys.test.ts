import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../server/keys/duration.js';
import { hashSecret } from '../../server/keys/hash.js';
import {
  createKey,
  ensureInitialTestKey,
  findKeyBySecret,
  generateSecret,
  ipAllowed,
  KeyOptionsError,
  keyState,
  listKeys,
  parseCidr,
  parseSecret,
  revokeKey,
} from '../../server/keys/index.js';
import { createEphemeralKey } from '../../server/repos/ephemeral-keys.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

describe('key formats', () => {
  it('makes prefixed secrets with at least 24 random bytes and reads kind and mode back', () => {
    const secret = generateSecret('restricted', true);
    expect(secret).toMatch(/^rk_live_[0-9A-Za-z]{43}$/);
    expect(parseSecret(secret)).toEqual({ kind: 'restricted', livemode: true });
    expect(parseSecret(generateSecret('publishable', false))).toEqual({
      kind: 'publishable',
      livemode: false,
    });
    expect(parseSecret(generateSecret('ephemeral', false))?.kind).toBe('ephemeral');
    expect(generateSecret('secret', false)).not.toBe(generateSecret('secret', false));
    expect(parseSecret('sk_prod_abc')).toBeUndefined();
    expect(parseSecret('Bearer sk_test_x')).toBeUndefined();
  });

  it('matches IPv4 and IPv6 CIDR allowlists, including v4-mapped addresses', () => {
    const list = ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'];
    expect(ipAllowed(list, '10.1.2.3')).toBe(true);
    expect(ipAllowed(list, '::ffff:10.1.2.3')).toBe(true);
    expect(ipAllowed(list, '11.0.0.1')).toBe(false);
    expect(ipAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(list, '2001:db9::1')).toBe(false);
    expect(ipAllowed(list, '192.0.2.7')).toBe(true);
    expect(ipAllowed(list, 'not-an-ip')).toBe(false);
    expect(ipAllowed([], '203.0.113.9')).toBe(true);
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('10.0.0/8')).toBeUndefined();
    expect(parseCidr('::1/129')).toBeUndefined();
  });

  it('hashes a secret to hex SHA-256 of its UTF-8 bytes (the stored form)', () => {
    for (const secret of [generateSecret('secret', false), 'sk_test_ünïcode_€']) {
      expect(hashSecret(secret)).toBe(createHash('sha256').update(secret, 'utf8').digest('hex'));
    }
    expect(hashSecret('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('parses durations', () => {
    expect(parseDuration('30d')).toBe(2_592_000);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('0d')).toBeUndefined();
    expect(parseDuration('1y')).toBeUndefined();
  });
});

await describeEachDatabase('key storage', (dialect) => {
  const ctx = useTestDb(dialect);

  it('stores only a SHA-256 hash: the secret appears nowhere in the table', async () => {
    const { key, secret } = await createKey(ctx.db, { kind: 'secret', livemode: false });
    const rows = await ctx.db.all('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(secret.slice(8, 30));
    expect(rows[0]?.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.hint).toBe(`sk_test_…${secret.slice(-4)}`);
    expect(await findKeyBySecret(ctx.db, secret)).toEqual(key);
    // One character changed (never to itself: a secret may already end in `x`).
    const other = secret.endsWith('x') ? 'y' : 'x';
    expect(await findKeyBySecret(ctx.db, `${secret.slice(0, -1)}${other}`)).toBeUndefined();
    expect(await findKeyBySecret(ctx.db, 'garbage')).toBeUndefined();
  });

  it('records restricted scopes, allowlists, origins and rate limits', async () => {
    const { key } = await createKey(ctx.db, {
      kind: 'restricted',
      livemode: true,
      scopes: ['patients:read', 'appointments:read'],
      allowedIps: ['10.0.0.0/8', '2001:db8::/32'],
      rateLimit: 50,
    });
    expect(key).toMatchObject({
      kind: 'restricted',
      livemode: true,
      scopes: ['patients:read', 'appointments:read'],
      allowedIps: ['10.0.0.0/8', '2001:db8::/32'],
      rateLimit: 50,
    });
    const { key: pk } = await createKey(ctx.db, {
      kind: 'publishable',
      livemode: false,
      allowedOrigins: ['https://clinic.example'],
    });
    expect(pk.allowedOrigins).toEqual(['https://clinic.example']);
  });

  it('refuses inconsistent options', async () => {
    const bad = [
      { kind: 'restricted', livemode: false },
      { kind: 'restricted', livemode: false, scopes: ['patients:delete'] },
      { kind: 'secret', livemode: false, scopes: ['patients:read'] },
      {
        kind: 'restricted',
        livemode: false,
        scopes: ['patients:read'],
        allowedIps: ['10.0.0.0/99'],
      },
      { kind: 'publishable', livemode: false, allowedIps: ['10.0.0.0/8'] },
      { kind: 'secret', livemode: false, allowedOrigins: ['https://x.example'] },
      { kind: 'publishable', livemode: false, allowedOrigins: ['https://x.example/path'] },
      { kind: 'ephemeral', livemode: false, scopes: ['billing:read'], patientId: 'pat_x' },
    ] as const;
    for (const options of bad) {
      await expect(createKey(ctx.db, options as never)).rejects.toBeInstanceOf(KeyOptionsError);
    }
    expect(await listKeys(ctx.db)).toEqual([]);
  });

  it('expires and revokes keys', async () => {
    const now = 1_800_000_000_000;
    const { key } = await createKey(ctx.db, {
      kind: 'secret',
      livemode: false,
      expiresInSeconds: 60,
      nowMs: now,
    });
    expect(keyState(key, now + 59_000)).toBe('active');
    expect(keyState(key, now + 60_000)).toBe('expired');
    expect(await revokeKey(ctx.db, key.id, now)).toBe(true);
    expect(await revokeKey(ctx.db, key.id, now)).toBe(false);
    const [stored] = await listKeys(ctx.db);
    expect(keyState(stored!, now)).toBe('revoked');
  });

  it('creates patient-bound ephemeral keys that expire after 15 minutes', async () => {
    const now = 1_800_000_000_000;
    const { key, secret } = await createEphemeralKey(ctx.db, {
      livemode: false,
      patientId: 'pat_01M80HGE0X35Z1D63FQN94B405',
      scopes: ['patients:read', 'appointments:write'],
      nowMs: now,
    });
    expect(secret).toMatch(/^ek_test_/);
    expect(key.id).toMatch(/^ephkey_/);
    expect(key.patientId).toBe('pat_01M80HGE0X35Z1D63FQN94B405');
    expect(keyState(key, now + 899_000)).toBe('active');
    expect(keyState(key, now + 900_000)).toBe('expired');
    expect(await listKeys(ctx.db)).toEqual([]);
    expect(await listKeys(ctx.db, { includeEphemeral: true })).toHaveLength(1);
  });

  it('creates the initial test key once, even when asked concurrently', async () => {
    const results = await Promise.all([ensureInitialTestKey(ctx.db), ensureInitialTestKey(ctx.db)]);
    const secrets = results.filter((s): s is string => s !== null);
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).toMatch(/^sk_test_/);
    expect(await ensureInitialTestKey(ctx.db)).toBeNull();
    const key = await findKeyBySecret(ctx.db, secrets[0]!);
    expect(key).toMatchObject({ kind: 'secret', livemode: false });
  });
});
