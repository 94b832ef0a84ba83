/**
 * An account pinned to 2026-11-01, requests without `PatientCare-Version`: every answer is in
 * the pin, the refusals before a route runs included — 401, 403 (scope, key kind, IP,
 * Origin), 404 `route_missing`, 429, a router refusal, CORS preflights (answered and refused)
 * and Node's parser refusals (400, 431, 408). Each answer made through Fastify is checked
 * against the released 2026-11-01 document (`spec/released/2026-11-01.json`), so its body
 * follows that contract too (appointment times as unix seconds). Parser refusals carry no
 * `RateLimit-*` (the spec says so) and use codes added to every version after 2026-11-01 was
 * released (`request_malformed`, `request_timeout`, `headers_too_large`): their envelopes
 * are checked against the 2026-11-01 document the service serves (derived from the modules).
 * A pin moved by another process (another connection) is followed within the cache's second;
 * a pin that cannot be read leaves refusals in the pin last read and serves nothing.
 * Both databases; PostgreSQL's half is skipped when it is unreachable.
 */
import type { InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { routeTableOf } from '../../generators/route-table.js';
import { DbError } from '../../server/db/errors.js';
import { connect } from '../../server/db/open.js';
import type { Db, SqlParams } from '../../server/db/types.js';
import { setAccountApiVersion } from '../../server/keys/account.js';
import { parseKeysCommand, runKeysCommand } from '../../server/keys/cli.js';
import { versions } from '../../server/versioning/index.js';
import type { CheckedAnswer } from '../../tooling/fuzz/response-checker.js';
import { ResponseChecker } from '../../tooling/fuzz/response-checker.js';
import { readReleased } from '../../tooling/spec-gate/released.js';
import { rawExchange } from '../http/support/raw-http.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { versionTable } from '../support/inject.js';
import { makeKey, type TestKey } from '../support/keys.js';

const PIN = '2026-11-01';
const released = new ResponseChecker(
  routeTableOf(readReleased('.', PIN) as unknown as Record<string, unknown>),
);
const served = new ResponseChecker(await versionTable(PIN));

await describeEachDatabase('answers in the account pin without the header', (dialect) => {
  const ctx = useTestDb(dialect);
  let t: TestApp;
  let port: number;
  let secret: TestKey;

  beforeEach(async () => {
    t = await buildTestApp({
      db: ctx.db,
      config: { headersTimeoutMs: 400, requestTimeoutMs: 800 },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as { port: number }).port;
    // The first key pins the latest; the operator moves the pin back, as a client would.
    secret = await makeKey(ctx.db);
    const out: string[] = [];
    const code = await runKeysCommand(ctx.db, parseKeysCommand(['version', PIN]), {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
    });
    expect(code).toBe(0);
  });
  afterEach(async () => t.close());

  /**
   * Sends without `PatientCare-Version`; checks a refusal against the released document, and
   * a 2xx against the 2026-11-01 document the service serves: fields added since the release
   * (an appointment's `practitioner_id`) reach every version under the additive rule
   * (docs/design.md#versioning), which the released file's closed schemas predate.
   */
  async function send(options: InjectOptions & { key?: string }): Promise<CheckedAnswer> {
    const { key, ...rest } = options;
    const headers: Record<string, string> = { ...(rest.headers as Record<string, string>) };
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    const res = await t.app.inject({ ...rest, headers });
    const answer = {
      status: res.statusCode,
      headers: res.headers,
      body: res.body === '' ? undefined : JSON.parse(res.body),
      text: res.body,
    };
    expect(answer.headers['patientcare-version'], `${rest.method} ${rest.url}`).toBe(PIN);
    const checker = answer.status < 300 ? served : released;
    checker.check(String(rest.method), String(rest.url), answer);
    return answer;
  }

  it('the pin is not the latest (the test would prove nothing otherwise)', () => {
    expect(versions.latest).not.toBe(PIN);
  });

  it('200, with the body in the pin: appointment times as unix seconds', async () => {
    const latest = { 'patientcare-version': versions.latest };
    const patient = await t.request({
      method: 'POST',
      url: '/v1/patients',
      key: secret.secret,
      headers: latest,
      body: { name: { family: 'Rivera' } },
    });
    const booked = await t.request({
      method: 'POST',
      url: '/v1/appointments',
      key: secret.secret,
      headers: latest,
      body: {
        patient: patient.body.id,
        practitioner: 'Dr. Lee',
        start: '2026-12-14T09:00:00+01:00',
        end: '2026-12-14T09:30:00+01:00',
      },
    });
    expect(booked.status).toBe(200);
    const list = await send({ method: 'GET', url: '/v1/appointments', key: secret.secret });
    expect(list.status).toBe(200);
    expect((list.body as { data: Array<{ start: unknown }> }).data[0]?.start).toBe(1797235200);
  });

  it('401 without a key and with a bad one', async () => {
    for (const key of [undefined, 'sk_test_notakey']) {
      const res = await send({ method: 'GET', url: '/v1/patients', ...(key ? { key } : {}) });
      expect(res.status).toBe(401);
    }
  });

  it('403: scope, key kind, IP, Origin', async () => {
    const restricted = await makeKey(ctx.db, { kind: 'restricted', scopes: ['appointments:read'] });
    const publishable = await makeKey(ctx.db, { kind: 'publishable' });
    const fenced = await makeKey(ctx.db, { allowedIps: ['10.0.0.0/8'] });
    const browser = await makeKey(ctx.db, {
      kind: 'publishable',
      allowedOrigins: ['https://clinic.example'],
    });
    const cases: Array<[string, InjectOptions & { key: string }]> = [
      ['insufficient_scope', { method: 'GET', url: '/v1/patients', key: restricted.secret }],
      ['secret_key_required', { method: 'GET', url: '/v1/patients', key: publishable.secret }],
      ['ip_not_allowed', { method: 'GET', url: '/v1/patients', key: fenced.secret }],
      [
        'secret_key_required',
        {
          method: 'GET',
          url: '/v1/patients',
          key: secret.secret,
          headers: { origin: 'https://elsewhere.example' },
        },
      ],
      [
        'insufficient_scope',
        {
          method: 'POST',
          url: '/v1/tokens',
          key: browser.secret,
          headers: { origin: 'https://elsewhere.example', 'content-type': 'application/json' },
          payload: '{}',
        },
      ],
    ];
    for (const [code, options] of cases) {
      const res = await send(options);
      expect(res.status, code).toBe(403);
      expect((res.body as { error: { code: string } }).error.code).toBe(code);
    }
  });

  it('404 route_missing and a router refusal', async () => {
    const missing = await send({ method: 'GET', url: '/v1/nothing-here', key: secret.secret });
    expect(missing.status).toBe(404);
    // Refused by the router before any hook runs: the error handler reads the pin itself.
    const router = await send({ method: 'GET', url: '/v1/patients/%E0%A4%A', key: secret.secret });
    expect(router.status).toBeGreaterThanOrEqual(400);
  });

  it('429', async () => {
    const slow = await makeKey(ctx.db, { rateLimit: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await send({ method: 'GET', url: '/v1/patients', key: slow.secret })).status);
    }
    expect(statuses).toContain(429);
  });

  it('CORS preflights, answered and refused', async () => {
    const preflight = (url: string, method: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://clinic.example', 'access-control-request-method': method },
      });
    const allowed = await preflight('/v1/appointments', 'GET');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['patientcare-version']).toBe(PIN);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://clinic.example');
    expect(allowed.body).toBe('');
    // The document has no OPTIONS operations: the refusal's envelope is checked on its own.
    const refused = await preflight('/v1/webhooks', 'POST');
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['patientcare-version']).toBe(PIN);
    released.checkErrorBody(JSON.parse(refused.body));
  });

  it("Node's parser refusals: 400, 431, 408, and before the headers were read", async () => {
    const head = `POST /v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret.secret}\r\nContent-Type: application/json\r\n`;
    const cases: Array<[number, string]> = [
      [400, `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
      [431, `GET /v1/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
      [408, `${head}Content-Length: 100\r\n\r\n{"name":`],
      [400, 'HELLO\r\n\r\n'],
    ];
    for (const [status, raw] of cases) {
      const answer = await rawExchange(port, [raw]);
      expect(answer.status, raw.slice(0, 20)).toBe(status);
      expect(answer.headers['patientcare-version'], raw.slice(0, 20)).toBe(PIN);
      served.checkErrorBody(JSON.parse(answer.body));
    }
  });

  it('a pin moved by another process is followed within a second, refusals included', async () => {
    expect((await send({ method: 'GET', url: '/v1/patients' })).status).toBe(401);
    const other = connect(ctx.url);
    try {
      await setAccountApiVersion(other, versions.latest, Date.now());
    } finally {
      await other.close();
    }
    // This process's cache keeps a pin for at most a second (docs/design.md#versioning).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const unauthenticated = await t.app.inject({ method: 'GET', url: '/v1/patients' });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['patientcare-version']).toBe(versions.latest);
    const parser = await rawExchange(port, ['HELLO\r\n\r\n']);
    expect(parser.headers['patientcare-version']).toBe(versions.latest);
  });
});

describe('when the pin cannot be read', () => {
  const ctx = useTestDb('sqlite');

  it('refusals are answered in the pin last read; a request with a key is a 503, not served in a guess', async () => {
    // The account row's reads fail while `down` is set, as on a lost connection.
    let down = false;
    const db = new Proxy(ctx.db, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === 'get') {
          return (sql: string, params?: SqlParams) =>
            down && sql.includes('FROM account')
              ? Promise.reject(new DbError('connection', 'connection lost', undefined))
              : target.get(sql, params);
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Db;
    const t = await buildTestApp({ db });
    try {
      const key = await makeKey(db);
      await setAccountApiVersion(db, PIN, Date.now());
      const bare = (secret?: string) =>
        t.app.inject({
          method: 'GET',
          url: '/v1/patients',
          ...(secret === undefined ? {} : { headers: { authorization: `Bearer ${secret}` } }),
        });
      expect((await bare()).headers['patientcare-version']).toBe(PIN);
      down = true;
      // Past the cache's second, so the next request reads the pin again, and fails.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const refused = await bare();
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['patientcare-version']).toBe(PIN);
      released.check('GET', '/v1/patients', {
        status: refused.statusCode,
        headers: refused.headers,
        body: JSON.parse(refused.body),
        text: refused.body,
      });
      const keyed = await bare(key.secret);
      expect(keyed.statusCode).toBe(503);
      expect(JSON.parse(keyed.body).error.code).toBe('service_unavailable');
      down = false;
      expect((await bare(key.secret)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
