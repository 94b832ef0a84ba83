import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'post-idempotency-key';
const header = (schema: Doc) => ({ name: 'Idempotency-Key', in: 'header', schema });
const post = (parameters?: Doc[]) =>
  openapi({
    '/v1/things': {
      post: { ...(parameters ? { parameters } : {}), responses: {} },
      get: { responses: {} },
    },
  });

describe(`patient-care/${rule}`, () => {
  it('passes a POST with a bounded Idempotency-Key (any case), and ignores GET', async () => {
    expect(await lintWithRule(rule, post([header({ type: 'string', maxLength: 255 })]))).toEqual(
      [],
    );
    const lower = { ...header({ type: 'string', maxLength: 64 }), name: 'idempotency-key' };
    expect(await lintWithRule(rule, post([lower]))).toEqual([]);
  });

  it('reports a POST without the header', async () => {
    const got = await lintWithRule(rule, post());
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(
      /^#\/paths\/~1v1~1things\/post: .*does not accept the Idempotency-Key header/,
    );
  });

  it.each([
    ['no maxLength', { type: 'string' }],
    ['a maxLength over 255', { type: 'string', maxLength: 1024 }],
    ['a non-string schema', { type: 'integer' }],
  ])('reports a header schema with %s', async (_, schema) => {
    const got = await lintWithRule(rule, post([header(schema)]));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(/^#\/paths\/~1v1~1things\/post\/parameters\/0: .*maxLength: 255/);
  });
});
