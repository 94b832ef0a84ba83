import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'operation-error-responses';
const ERRORS: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '429': 'TooManyRequests',
  '500': 'InternalError',
};
const envelope = {
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const components = (overrides: Doc = {}): Doc => ({
  schemas: { Error: { type: 'object' } },
  responses: Object.fromEntries(
    Object.values(ERRORS).map((name) => [
      name,
      { description: name, ...envelope, ...(overrides[name] as Doc) },
    ]),
  ),
});
const refs = (...codes: string[]) =>
  Object.fromEntries(
    codes.map((code) => [code, { $ref: `#/components/responses/${ERRORS[code]}` }]),
  );
const base = ['400', '401', '403', '429', '500'];

describe(`patient-care/${rule}`, () => {
  it('passes GET by id with 404, POST with 409, all on the shared envelope', async () => {
    const given = openapi(
      {
        '/v1/things/{id}': { get: { responses: refs(...base, '404') } },
        '/v1/things': { post: { responses: refs(...base, '409') } },
      },
      components(),
    );
    expect(await lintWithRule(rule, given)).toEqual([]);
  });

  it('reports missing errors: 404 for a path parameter, 409 for POST', async () => {
    const given = openapi(
      {
        '/v1/things/{id}': { get: { operationId: 'getThing', responses: refs(...base) } },
        '/v1/things': { post: { responses: refs('400', '401', '403', '500') } },
      },
      components(),
    );
    const got = await lintWithRule(rule, given);
    expect(got).toHaveLength(2);
    expect(got[0]).toMatch(
      /^#\/paths\/~1v1~1things~1\{id\}\/get\/responses: GET \/v1\/things\/\{id\} \(getThing\) does not document error response\(s\) 404\./,
    );
    expect(got[1]).toContain('POST /v1/things does not document error response(s) 409, 429');
  });

  it('reports a shared error response off the envelope once, and a missing Error schema', async () => {
    const given = openapi(
      {
        '/v1/a': { post: { responses: refs(...base, '409') } },
        '/v1/b': { post: { responses: refs(...base, '409') } },
      },
      components({ Conflict: { content: { 'application/json': { schema: { type: 'object' } } } } }),
    );
    const got = await lintWithRule(rule, given);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(
      /^#\/components\/responses\/Conflict\/content\/application~1json\/schema: .*is an inline schema/,
    );
    const noError = openapi({}, { schemas: {} });
    expect(await lintWithRule(rule, noError)).toEqual([
      expect.stringMatching(/^#\/components: components\.schemas\.Error is missing/),
    ]);
  });
});
