import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'response-request-id';
const requestId = { 'Request-Id': { schema: { type: 'string' } } };
const get = (responses: Doc, components: Doc = {}) =>
  openapi({ '/v1/things': { get: { responses } } }, components);

describe(`patient-care/${rule}`, () => {
  it('passes responses that declare Request-Id (any case), inline or shared', async () => {
    const given = get(
      {
        '200': { description: 'ok', headers: { 'request-id': { schema: { type: 'string' } } } },
        '400': { $ref: '#/components/responses/BadRequest' },
      },
      { responses: { BadRequest: { description: 'bad', headers: requestId } } },
    );
    expect(await lintWithRule(rule, given)).toEqual([]);
  });

  it('reports each response without it; a shared one once, where it is defined', async () => {
    const shared = { $ref: '#/components/responses/BadRequest' };
    const given = openapi(
      {
        '/v1/a': { get: { responses: { '200': { description: 'ok' }, '400': shared } } },
        '/v1/b': {
          get: { responses: { '200': { description: 'ok', headers: {} }, '400': shared } },
        },
      },
      { responses: { BadRequest: { description: 'bad' } } },
    );
    const got = await lintWithRule(rule, given);
    expect(got.map((l) => l.split(': ')[0])).toEqual([
      '#/paths/~1v1~1a/get/responses/200',
      '#/components/responses/BadRequest',
      '#/paths/~1v1~1b/get/responses/200/headers',
    ]);
    expect(got[1]).toContain('components.responses.BadRequest (the 400 response of GET /v1/a)');
  });
});
