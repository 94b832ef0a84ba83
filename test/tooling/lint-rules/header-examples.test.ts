import { describe, expect, it } from 'vitest';
import { lintWithRule, openapi } from './lint-rule.js';

const rule = 'header-examples';

describe(`patient-care/${rule}`, () => {
  it('passes header examples that match their schema, inline or by $ref', async () => {
    const given = openapi(
      {},
      {
        schemas: { RequestId: { type: 'string', pattern: '^req_' } },
        headers: {
          'Request-Id': { schema: { $ref: '#/components/schemas/RequestId' }, example: 'req_1' },
          Limit: { schema: { type: 'integer', minimum: 1 }, examples: { one: { value: 1 } } },
        },
      },
    );
    expect(await lintWithRule(rule, given)).toEqual([]);
  });

  it('reports example and examples entries that do not match, at their value', async () => {
    const given = openapi(
      {
        '/things': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                headers: { Remaining: { schema: { type: 'integer', minimum: 0 }, example: -1 } },
              },
            },
          },
        },
      },
      {
        schemas: { RequestId: { type: 'string', pattern: '^req_' } },
        headers: {
          'Request-Id': { schema: { $ref: '#/components/schemas/RequestId' }, example: 'abc' },
          Limit: { schema: { type: 'integer' }, examples: { text: { value: 'ten' } } },
        },
      },
    );
    const got = await lintWithRule(rule, given);
    expect(got.map((line) => line.split(': ')[0])).toEqual([
      '#/paths/~1things/get/responses/200/headers/Remaining/example',
      '#/components/headers/Request-Id/example',
      '#/components/headers/Limit/examples/text/value',
    ]);
    expect(got[0]).toContain('must be >= 0');
    expect(got[1]).toContain('must match pattern');
  });

  it('treats nullable as the server does: null passes only where the schema says nullable', async () => {
    const given = openapi(
      {},
      {
        headers: {
          Maybe: { schema: { type: 'string', nullable: true }, example: null },
          Never: { schema: { type: 'string' }, example: null },
        },
      },
    );
    expect((await lintWithRule(rule, given)).map((l) => l.split(': ')[0])).toEqual([
      '#/components/headers/Never/example',
    ]);
  });

  it('skips a header whose schema it cannot convert instead of reporting it', async () => {
    const given = openapi(
      {},
      {
        headers: {
          Split: {
            schema: { type: 'object', properties: { id: { $ref: 'other.yaml#/Id' } } },
            example: { id: 'x' },
          },
        },
      },
    );
    expect(await lintWithRule(rule, given)).toEqual([]);
  });
});
