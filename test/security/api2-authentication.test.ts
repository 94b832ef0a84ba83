/**
 * OWASP API2:2023 Broken Authentication, beyond the auth matrix (missing, unknown, revoked,
 * expired keys on every route): malformed Authorization headers, keys of the wrong prefix or
 * mode, a valid secret with its prefix changed, keys in places other than the header, and
 * hostile lengths and bytes. Every one is 401 in the envelope, and no answer echoes the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSecurityApp, type SecurityApp } from './support/security-app.js';

let s: SecurityApp;
beforeAll(async () => {
  s = await buildSecurityApp();
});
afterAll(() => s.close());

/** The secret part of a key after its `sk_test_` style prefix. */
const body = (key: string) => key.replace(/^[a-z]+_(test|live)_/, '');

describe('malformed Authorization headers → 401, never 500', () => {
  const cases: Array<[string, () => string]> = [
    ['the scheme alone', () => 'Bearer'],
    ['the scheme and a space', () => 'Bearer '],
    [
      'Basic with the key as user',
      () => `Basic ${Buffer.from(`${s.keys.secret}:`).toString('base64')}`,
    ],
    ['Token scheme', () => `Token ${s.keys.secret}`],
    ['the key without a scheme', () => s.keys.secret],
    ['two keys', () => `Bearer ${s.keys.secret} ${s.keys.secret}`],
    ['a comma-joined pair', () => `Bearer ${s.keys.secret}, Bearer ${s.keys.live}`],
    ['a key with trailing junk', () => `Bearer ${s.keys.secret}x`],
    ['a truncated key', () => `Bearer ${s.keys.secret.slice(0, -1)}`],
    ['an upper-cased key', () => `Bearer ${s.keys.secret.toUpperCase()}`],
    ['a 10 kB key', () => `Bearer sk_test_${'A'.repeat(10_000)}`],
    ['a key with a NUL-looking escape', () => `Bearer sk_test_%00${body(s.keys.secret)}`],
    ['non-ASCII', () => `Bearer sk_test_${'é'.repeat(20)}`],
  ];
  it.each(cases)('%s', async (_name, header) => {
    const value = header();
    const res = await s.t.request({
      method: 'GET',
      url: '/v1/patients',
      headers: { authorization: value },
    });
    expect(res.status, res.text).toBe(401);
    expect(res.body.error.type).toBe('authentication_error');
    expect(['api_key_invalid', 'api_key_missing']).toContain(res.body.error.code);
    expect(res.text).not.toContain(body(s.keys.secret));
  });
});

describe('a valid secret under another prefix is not a key', () => {
  it.each(['rk_test_', 'pk_test_', 'ek_test_', 'sk_live_', 'xk_test_', 'sk_prod_', 'sk_'])(
    '%s + the secret of an sk_test_ key → 401',
    async (prefix) => {
      const res = await s.t.request({
        method: 'GET',
        url: '/v1/patients',
        key: `${prefix}${body(s.keys.secret)}`,
      });
      expect(res.status, res.text).toBe(401);
      expect(res.body.error.code).toBe('api_key_invalid');
    },
  );
});

describe('keys only count in the Authorization header', () => {
  it.each([
    ['query api_key', (k: string) => ({ url: `/v1/patients?api_key=${k}` })],
    ['query key', (k: string) => ({ url: `/v1/patients?key=${k}` })],
    ['X-Api-Key header', (k: string) => ({ url: '/v1/patients', headers: { 'x-api-key': k } })],
    ['cookie', (k: string) => ({ url: '/v1/patients', headers: { cookie: `api_key=${k}` } })],
  ])('%s → 401 api_key_missing (authentication comes before validation)', async (_n, where) => {
    const res = await s.t.request({ method: 'GET', ...where(s.keys.secret) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('api_key_missing');
    expect(res.text).not.toContain(body(s.keys.secret));
  });
});

describe('scheme spelling', () => {
  it('accepts the scheme case-insensitively (RFC 9110 §11.1), with the exact key only', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer  ']) {
      const res = await s.t.request({
        method: 'GET',
        url: '/v1/patients',
        headers: { authorization: `${scheme} ${s.keys.secret}` },
      });
      expect(res.status, scheme).toBe(200);
    }
  });
});
