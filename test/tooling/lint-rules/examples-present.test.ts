import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'examples-present';
const json = (extra: Doc) => ({
  content: { 'application/json': { schema: { type: 'object' }, ...extra } },
});

describe(`patient-care/${rule}`, () => {
  it('passes schemas with example and bodies with example or examples', async () => {
    const given = openapi(
      {
        '/v1/things': {
          post: {
            requestBody: json({ example: {} }),
            responses: {
              '200': { description: 'ok', ...json({ examples: { one: { value: {} } } }) },
              '400': { description: 'no example needed for errors', ...json({}) },
            },
          },
        },
      },
      { schemas: { Thing: { type: 'object', example: {} } } },
    );
    expect(await lintWithRule(rule, given)).toEqual([]);
  });

  it('reports a schema, a request body and a 2xx response without an example', async () => {
    const given = openapi(
      {
        '/v1/things': {
          post: {
            operationId: 'createThing',
            requestBody: json({}),
            responses: { '201': { description: 'ok', ...json({ examples: {} }) } },
          },
        },
      },
      { schemas: { Thing: { type: 'object' } } },
    );
    const got = await lintWithRule(rule, given);
    expect(got.map((l) => l.split(': ')[0])).toEqual([
      '#/components/schemas/Thing',
      '#/paths/~1v1~1things/post/requestBody/content/application~1json',
      '#/paths/~1v1~1things/post/responses/201/content/application~1json',
    ]);
    expect(got[1]).toContain('The request body of POST /v1/things (createThing)');
  });

  it('reports a parameter without an example, of the operation or of its path', async () => {
    const given = openapi({
      '/v1/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'retrieveThing',
          parameters: [
            { name: 'expand', in: 'query', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer' }, example: 10 },
            {
              name: 'Idempotency-Key',
              in: 'header',
              schema: { type: 'string' },
              examples: { uuid: { value: '5f0c8e3a-3c1b-4f6e-9a8d-2b7c6e1f4a90' } },
            },
          ],
          responses: { '200': { description: 'ok', ...json({ example: {} }) } },
        },
      },
    });
    const got = await lintWithRule(rule, given);
    expect(got.map((l) => l.split(': ')[0])).toEqual([
      '#/paths/~1v1~1things~1{id}/parameters/0',
      '#/paths/~1v1~1things~1{id}/get/parameters/0',
    ]);
    expect(got[0]).toContain('The path parameter id of GET /v1/things/{id} (retrieveThing)');
  });
});
