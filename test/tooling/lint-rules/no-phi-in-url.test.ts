import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'no-phi-in-url';
const withParameters = (parameters: Doc[]) =>
  openapi({ '/v1/things/{id}': { get: { parameters, responses: {} } } });
const query = (name: string, schema: Doc = { type: 'string' }) => ({ name, in: 'query', schema });

describe(`patient-care/${rule}`, () => {
  it('passes ids, cursors, filters and a POST body', async () => {
    const given = withParameters([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      query('limit'),
      query('starting_after'),
      query('created', { type: 'object', properties: { gt: { type: 'integer' } } }),
      { name: 'Family-Name', in: 'header', schema: { type: 'string' } },
    ]);
    expect(await lintWithRule(rule, given)).toEqual([]);
  });

  it.each([
    ['family_name', query('family_name'), 'family_name', 'family'],
    ['birthDate', query('birthDate'), 'birthDate', 'birth'],
    ['zipcode', query('zipcode'), 'zipcode', 'zipcode'],
    [
      'a deepObject property',
      query('identifier_filter', { type: 'object', properties: { email: { type: 'string' } } }),
      'identifier_filter',
      'identifier',
    ],
  ])('reports %s at the parameter name', async (_, parameter, name, word) => {
    const got = await lintWithRule(rule, withParameters([parameter]));
    expect(got[0]).toMatch(/^#\/paths\/~1v1~1things~1\{id\}\/get\/parameters\/0\/name: /);
    expect(got[0]).toContain(`"${name}`);
    expect(got[0]).toContain(`the word "${word}"`);
  });

  it('reports a shared parameter once, where it is defined', async () => {
    const ref = { $ref: '#/components/parameters/Email' };
    const given = openapi(
      {
        '/v1/a': { get: { parameters: [ref], responses: {} } },
        '/v1/b': { get: { parameters: [ref], responses: {} } },
      },
      { parameters: { Email: query('email') } },
    );
    expect((await lintWithRule(rule, given)).map((l) => l.split(': ')[0])).toEqual([
      '#/components/parameters/Email/name',
    ]);
  });
});
