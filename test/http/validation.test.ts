import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { versions } from '../../server/versioning/index.js';
import { type FixtureApp, fixtureApp } from '../fixtures/http/app.js';

let t: FixtureApp;
beforeAll(async () => {
  t = await fixtureApp();
});
afterAll(() => t.close());

const create = (body: unknown) =>
  t.request({ method: 'POST', url: '/v1/widgets', key: t.keys.secret.secret, body });
const list = (query: string) =>
  t.request({ method: 'GET', url: `/v1/widgets${query}`, key: t.keys.secret.secret });

describe('body validation (strict)', () => {
  it('accepts a valid body', async () => {
    const res = await create({ name: { family: 'Doe', given: ['J'] }, birth_date: '1990-01-02' });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('widget');
  });

  it.each([
    [
      'unknown top-level field',
      { name: { family: 'A' }, colour: 'red' },
      'parameter_unknown',
      'colour',
    ],
    [
      'unknown nested field',
      { name: { family: 'A', famly: 'B' } },
      'parameter_unknown',
      'name[famly]',
    ],
    ['missing nested field', { name: { given: ['A'] } }, 'parameter_missing', 'name[family]'],
    ['wrong type', { name: { family: 7 } }, 'parameter_invalid', 'name[family]'],
    [
      'number as string is not coerced',
      { name: { family: 'A' }, line_items: [{ quantity: '2' }] },
      'parameter_invalid',
      'line_items[0][quantity]',
    ],
    [
      'bad format',
      { name: { family: 'A' }, birth_date: '02/01/1990' },
      'parameter_invalid',
      'birth_date',
    ],
    ['not in enum', { name: { family: 'A' }, gender: 'robot' }, 'parameter_invalid', 'gender'],
    ['too short', { name: { family: '' } }, 'parameter_invalid', 'name[family]'],
    [
      'array item type',
      { name: { family: 'A', given: [1] } },
      'parameter_invalid',
      'name[given][0]',
    ],
    [
      'metadata value type',
      { name: { family: 'A' }, metadata: { k: 1 } },
      'parameter_invalid',
      'metadata[k]',
    ],
  ])('%s', async (_label, body, code, param) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toContain(param);
  });

  it('explains a oneOf failure by the branch the body came closest to', async () => {
    // A token body with an extra field: the token branch's complaint, not "name is missing".
    const withToken = await create({ token: 'tok_01JDB2C3D4E5F6G7H8J9K0M1NP', colour: 'red' });
    expect(withToken.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    const patientLike = await create({ name: { family: 'A' }, birth_date: 5 });
    expect(patientLike.body.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'birth_date',
    });
  });

  it('names the body itself when it is not an object', async () => {
    const res = await create([1, 2]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('parameter_invalid');
    expect(res.body.error.param).toBeNull();
  });

  it('never echoes the value sent', async () => {
    const res = await create({ name: { family: 'A' }, birth_date: 'Rivera-Quixote' });
    expect(res.body.error.code).toBe('parameter_invalid');
    expect(res.text).not.toContain('Rivera-Quixote');
  });

  it('does not fill in defaults or drop fields it accepted', async () => {
    const res = await create({ name: { family: 'Kept' } });
    expect(res.body.name).toEqual({ family: 'Kept' });
  });
});

describe('query and path parameters (coerced)', () => {
  it('coerces numbers and booleans from strings and parses deepObject', async () => {
    const res = await list('?limit=2&active=true&created[gt]=1&created[lte]=2000000000');
    expect(res.status).toBe(200);
  });

  it.each([
    ['?limit=abc', 'parameter_invalid', 'limit'],
    ['?limit=0', 'parameter_invalid', 'limit'],
    ['?limit=101', 'parameter_invalid', 'limit'],
    ['?created[gt]=yesterday', 'parameter_invalid', 'created[gt]'],
    ['?created[after]=1', 'parameter_unknown', 'created[after]'],
    ['?colour=red', 'parameter_unknown', 'colour'],
    ['?starting_after=pat_01JD7X5K8M9N2P3Q4R5S6T7V8W', 'parameter_invalid', 'starting_after'],
  ])('%s', async (query, code, param) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it('rejects starting_after with ending_before', async () => {
    const id = 'wid_01JD7X5K8M9N2P3Q4R5S6T7V8W';
    const res = await list(`?starting_after=${id}&ending_before=${id}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('parameters_exclusive');
  });

  it('rejects both cursors in a search body too', async () => {
    const id = 'wid_01JD7X5K8M9N2P3Q4R5S6T7V8W';
    const res = await t.request({
      method: 'POST',
      url: '/v1/widgets/search',
      key: t.keys.secret.secret,
      body: { starting_after: id, ending_before: id },
    });
    expect(res.body.error.code).toBe('parameters_exclusive');
  });

  it('validates path parameters and names them', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/widgets/nope',
      key: t.keys.secret.secret,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'id' });
  });
});

describe('headers', () => {
  it('echoes a known PatientCare-Version and rejects an unknown one', async () => {
    const ok = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      headers: { 'patientcare-version': '2026-11-01' },
    });
    expect(ok.headers['patientcare-version']).toBe('2026-11-01');
    const bad = await t.request({
      method: 'GET',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      headers: { 'patientcare-version': '2020-01-01' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'PatientCare-Version',
    });
    // Refused before a version was chosen: the answer is in the latest.
    expect(bad.headers['patientcare-version']).toBe(versions.latest);
  });

  it('checks the version only after the key kind and scope (spec order)', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/widgets',
      key: t.keys.readOnly.secret,
      headers: { 'patientcare-version': '2020-01-01' },
      body: { name: { family: 'A' } },
    });
    expect(res.status).toBe(403);
  });

  it('rejects an Idempotency-Key over 255 characters, naming the header', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/widgets',
      key: t.keys.secret.secret,
      idempotencyKey: 'k'.repeat(256),
      body: { name: { family: 'A' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
  });
});
