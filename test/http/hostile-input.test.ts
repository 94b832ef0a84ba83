/**
 * Client input no database can store as sent, text that is not Unicode, and errors that must
 * name the right parameter — on SQLite and PostgreSQL alike: each case asserts the same
 * status, code and param on both, and never a 500.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/app.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

const PATIENT = { name: { family: 'Hostile', given: ['Input'] }, birth_date: '1980-02-03' };

function bytes(...parts: (string | number[])[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
}

await describeEachDatabase('hostile input', (dialect) => {
  const ctx = useTestDb(dialect);
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await buildTestApp({ db: ctx.db });
    return () => t.close();
  });
  beforeEach(async () => {
    key = (await makeKey(ctx.db)).secret;
  });

  const post = (url: string, payload: string | Buffer, contentType = 'application/json') =>
    t.request({ method: 'POST', url, key, payload, headers: { 'content-type': contentType } });
  const get = (url: string) => t.request({ method: 'GET', url, key });
  const expectError = (
    res: { status: number; body: { error: { code: string; param: string | null } } },
    status: number,
    code: string,
    param?: string | null,
  ) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (param !== undefined) expect(res.body.error.param).toBe(param);
  };

  async function appointmentBody(start: string): Promise<string> {
    const patient = await t.request({ method: 'POST', url: '/v1/patients', key, body: PATIENT });
    return `{"patient":"${patient.body.id}","practitioner":"Dr A","start":${start},"end":${start}}`;
  }

  // Item 1: values the two databases cannot both store exactly.
  it.each([
    ['a NUL in a name', { name: { family: 'Nul\u0000byte' } }, 'name[family]'],
    ['a NUL in a list item', { name: { family: 'A', given: ['B\u0000'] } }, 'name[given][0]'],
    ['a NUL in a metadata value', { ...PATIENT, metadata: { ref: 'x\u0000' } }, 'metadata[ref]'],
    ['a NUL in a metadata key', { ...PATIENT, metadata: { 're\u0000f': 'x' } }, 'metadata'],
    ['a __proto__ metadata key', JSON.parse('{"metadata":{"__proto__":"x"}}'), 'metadata'],
  ])('%s → 400 parameter_invalid naming it', async (_label, body, param) => {
    const payload = JSON.stringify({ ...PATIENT, ...body });
    const res = await post('/v1/patients', payload);
    expectError(res, 400, 'parameter_invalid', param);
    expect(res.body.error.message).not.toContain('\u0000');
  });

  it.each([
    ['past int64', '99999999999999999999999'],
    ['past 2^53 (rounds on read)', '9007199254740993'],
    ['1e308', '1e308'],
  ])('a body integer %s → 400 parameter_invalid naming it', async (_label, start) => {
    const res = await post('/v1/appointments', await appointmentBody(start));
    expectError(res, 400, 'parameter_invalid', 'start');
    // The version's document bounds a time by the last RFC 3339 instant, well inside 2^53.
    expect(res.body.error.message).toContain('253402300799');
  });

  it.each([
    ['created[gt]=10000000000000000000', 'created[gt]'],
    ['created[lte]=9007199254740993', 'created[lte]'],
    ['created[gt]=-9223372036854775809', 'created[gt]'],
  ])('query %s → 400 parameter_invalid', async (query, param) => {
    expectError(await get(`/v1/patients?${query}`), 400, 'parameter_invalid', param);
  });

  it('the largest exact integer is accepted in a query', async () => {
    expect((await get('/v1/patients?created[lt]=9007199254740991')).status).toBe(200);
  });

  // Item 2: text that is not Unicode scalar values.
  it.each([
    ['an escaped lone high surrogate', '{"name":{"family":"Lone\\ud800"}}', 'name[family]'],
    [
      'an escaped lone low surrogate',
      '{"name":{"family":"A","given":["\\udc00x"]}}',
      'name[given][0]',
    ],
    ['a lone surrogate in a key', '{"name":{"family":"A"},"metadata":{"\\ud800":"x"}}', 'metadata'],
  ])('%s → 400 body_invalid_json naming it', async (_label, payload, param) => {
    const res = await post('/v1/patients', payload);
    expectError(res, 400, 'body_invalid_json', param);
    expect(res.body.error.message).toMatch(/surrogate/);
  });

  it('a surrogate pair (an emoji) is text, stored and echoed as sent', async () => {
    const res = await post('/v1/patients', '{"name":{"family":"Smile \\ud83d\\ude00"}}');
    expect(res.status).toBe(200);
    expect(res.body.name.family).toBe('Smile 😀');
  });

  it.each([
    ['Latin-1 é', bytes('{"name":{"family":"Caf', [0xe9], '"}}')],
    ['an overlong "/"', bytes('{"name":{"family":"A', [0xc0, 0xaf], '"}}')],
    ['a surrogate encoded as bytes', bytes('{"name":{"family":"A', [0xed, 0xa0, 0x80], '"}}')],
    ['a truncated sequence', bytes('{"name":{"family":"A', [0xe2, 0x82], '"}}')],
  ])('bytes that are not UTF-8 (%s) → 400 body_invalid_json, not U+FFFD', async (_l, payload) => {
    const res = await post('/v1/patients', payload);
    expectError(res, 400, 'body_invalid_json', null);
    expect(res.body.error.message).toMatch(/UTF-8/);
  });

  it('a leading UTF-8 byte-order mark is ignored (RFC 8259 §8.1)', async () => {
    const res = await post('/v1/patients', bytes([0xef, 0xbb, 0xbf], JSON.stringify(PATIENT)));
    expect(res.status).toBe(200);
  });

  it.each(['utf-16', 'UTF-16LE', 'iso-8859-1', 'latin1', 'us-ascii', 'no-such-charset'])(
    'charset=%s → 415 content_type_unsupported',
    async (charset) => {
      const res = await post(
        '/v1/patients',
        JSON.stringify(PATIENT),
        `application/json; charset=${charset}`,
      );
      expectError(res, 415, 'content_type_unsupported');
    },
  );

  it.each(['utf-8', 'UTF-8', 'utf8', '"utf-8"'])('charset=%s is accepted', async (charset) => {
    const res = await post(
      '/v1/patients',
      JSON.stringify(PATIENT),
      `application/json; charset=${charset}`,
    );
    expect(res.status).toBe(200);
  });

  // Item 7: errors that name the right thing.
  it('createPatient reports the patient branch’s error, as updatePatient does', async () => {
    const body = '{"name":{"family":"A"},"address":{"country":"us"}}';
    const created = await post('/v1/patients', body);
    expectError(created, 400, 'parameter_invalid', 'address[country]');
    const patient = await post('/v1/patients', JSON.stringify(PATIENT));
    const updated = await post(`/v1/patients/${patient.body.id}`, body);
    expectError(updated, 400, 'parameter_invalid', 'address[country]');
    expect(created.body.error.message).toBe(updated.body.error.message);
  });

  it('createPatient with a token reports the token branch’s error', async () => {
    expectError(await post('/v1/patients', '{"token":5}'), 400, 'parameter_invalid', 'token');
  });

  it('a __proto__ key is data: refused as an unknown parameter, not as invalid JSON', async () => {
    const res = await post('/v1/patients', '{"name":{"family":"A"},"__proto__":{"admin":true}}');
    expectError(res, 400, 'parameter_unknown', '__proto__');
  });

  it.each(['0x10', '1e1', '%201', '1%20', '+1', '01', '1.0', '1_0', ''])(
    'limit=%s → 400 parameter_invalid',
    async (value) => {
      expectError(await get(`/v1/patients?limit=${value}`), 400, 'parameter_invalid', 'limit');
    },
  );

  it('limit[]=1 and limit given twice → 400 parameter_invalid', async () => {
    expectError(await get('/v1/patients?limit[]=1'), 400, 'parameter_invalid', 'limit');
    expectError(await get('/v1/patients?limit=1&limit=2'), 400, 'parameter_invalid', 'limit');
  });

  it('booleans are true or false only', async () => {
    expect((await get('/v1/patients?active=true&limit=5')).status).toBe(200);
    expectError(await get('/v1/patients?active=1'), 400, 'parameter_invalid', 'active');
    expectError(await get('/v1/patients?active=TRUE'), 400, 'parameter_invalid', 'active');
  });

  it('a body nested 300,000 deep is refused, not a crash', async () => {
    const res = await post('/v1/patients', `${'['.repeat(300_000)}${']'.repeat(300_000)}`);
    expectError(res, 400, 'parameter_invalid');
  });
});
