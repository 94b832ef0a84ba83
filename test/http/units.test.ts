import { describe, expect, it } from 'vitest';
import { scopeGranted } from '../../contract/scopes.js';
import { ConfigError, loadConfig } from '../../server/config.js';
import { canonicalJson, readIdempotencyKey, requestHash } from '../../server/http/idempotency.js';
import { scrubMessage, serializeError } from '../../server/http/logging.js';
import { parseQueryString } from '../../server/http/querystring.js';

describe('parseQueryString', () => {
  it.each([
    ['', {}],
    ['limit=5', { limit: '5' }],
    ['created[gt]=1&created[lte]=2', { created: { gt: '1', lte: '2' } }],
    ['created%5Bgt%5D=1', { created: { gt: '1' } }],
    ['a=1&a=2', { a: ['1', '2'] }],
    ['ids[]=x&ids[]=y', { ids: ['x', 'y'] }],
    ['q=a+b%20c', { q: 'a b c' }],
    ['flag', { flag: '' }],
    ['bad=%E0%A4%A', { bad: '%E0%A4%A' }],
    ['a[b][c]=1', { 'a[b][c]': '1' }],
    ['&&limit=5&', { limit: '5' }],
    ['=x&limit=5', { limit: '5' }],
    ['x=1=2', { x: '1=2' }],
    ['[a]=1&a]=2&a[]]=3&a[b=4', { '[a]': '1', 'a]': '2', 'a[]]': '3', 'a[b': '4' }],
    ['a=1&a[b]=2', { a: '1', 'a[b]': '2' }],
    ['ids[]=x&ids=y', { ids: ['x', 'y'] }],
  ])('%s', (raw, want) => {
    expect({ ...parseQueryString(raw) }).toEqual(want);
  });

  it('keeps prototype names as plain data', () => {
    const parsed = parseQueryString('__proto__[polluted]=1&constructor=x');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(parsed).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('turns a contradictory query into something validation rejects', () => {
    expect(Array.isArray(parseQueryString('created[gt]=1&created=2').created)).toBe(true);
  });
});

describe('scopes', () => {
  it('write implies read of the same resource only', () => {
    expect(scopeGranted(['patients:write'], 'patients:read')).toBe(true);
    expect(scopeGranted(['patients:read'], 'patients:write')).toBe(false);
    expect(scopeGranted(['billing:write'], 'patients:read')).toBe(false);
  });
});

describe('idempotency helpers', () => {
  it('hashes canonical JSON: key order does not matter, values do', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
    const a = requestHash('POST', '/v1/x', { a: 1, b: 2 });
    expect(requestHash('POST', '/v1/x', { b: 2, a: 1 })).toBe(a);
    expect(requestHash('POST', '/v1/y', { a: 1, b: 2 })).not.toBe(a);
    expect(requestHash('POST', '/v1/x', { a: 1, b: 3 })).not.toBe(a);
  });

  it('accepts 1–255 visible ASCII characters', () => {
    expect(readIdempotencyKey(undefined)).toBeUndefined();
    expect(readIdempotencyKey('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'k'.repeat(256), 'has space', 'ümlaut']) {
      expect(() => readIdempotencyKey(bad)).toThrow(/Idempotency-Key/);
    }
  });
});

describe('logged errors', () => {
  it('lose quoted values and digit runs, keep their shape', () => {
    expect(scrubMessage(`near "WHERE family = 'Smith'" at 19870412`)).toBe(
      'near "[redacted]" at #',
    );
    const logged = serializeError(
      Object.assign(new Error("duplicate 'A-123456'"), {
        code: '23505',
        detail: 'Key (mrn)=(123456)',
      }),
    );
    expect(logged).toMatchObject({
      type: 'Error',
      code: '23505',
      message: "duplicate '[redacted]'",
    });
    expect(JSON.stringify(logged)).not.toContain('123456');
    expect(logged.detail).toBeUndefined();
  });
});

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 4010,
      databaseUrl: undefined,
      trustProxy: false,
      bodyLimit: 1024 * 1024,
      rateLimits: { liveRps: 100, testRps: 25, anonymousRps: 25 },
    });
  });

  it('reads the environment', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '8080',
      DATABASE_URL: 'sqlite::memory:',
      TRUSTED_PROXY: '10.0.0.0/8,127.0.0.1',
      RATE_LIMIT_LIVE: '200',
      RATE_LIMIT_TEST: '50',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      databaseUrl: 'sqlite::memory:',
      trustProxy: '10.0.0.0/8,127.0.0.1',
      rateLimits: { liveRps: 200, testRps: 50, anonymousRps: 50 },
    });
    expect(loadConfig({ TRUSTED_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUSTED_PROXY: '2' }).trustProxy).toBe(2);
  });

  it.each([
    [{ PORT: 'http' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ RATE_LIMIT_LIVE: '-1' }, 'RATE_LIMIT_LIVE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ])('rejects %j naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });
});
