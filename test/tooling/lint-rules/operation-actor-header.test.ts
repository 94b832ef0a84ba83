import { describe, expect, it } from 'vitest';
import { ACTOR_PATTERN } from '../../../contract/actor.js';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'operation-actor-header';
const actor = (schema: Doc, description = 'An opaque id of who acts. Never PHI.') => ({
  name: 'PatientCare-Actor',
  in: 'header',
  description,
  schema,
});
const good = { type: 'string', maxLength: 64, pattern: ACTOR_PATTERN };
const doc = (parameters?: Doc[]) =>
  openapi({
    '/v1/things': {
      get: { ...(parameters ? { parameters } : {}), responses: {} },
    },
    '/healthz': { get: { security: [], responses: {} } },
  });

describe(`patient-care/${rule}`, () => {
  it('passes a keyed operation with the header in its one form, and ignores public ones', async () => {
    expect(await lintWithRule(rule, doc([actor(good)]))).toEqual([]);
  });

  it('reports a keyed operation without the header', async () => {
    const got = await lintWithRule(rule, doc());
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(
      /^#\/paths\/~1v1~1things\/get: .*does not accept the PatientCare-Actor header/,
    );
  });

  it.each([
    ['no pattern', { type: 'string', maxLength: 64 }],
    ['a looser pattern', { type: 'string', maxLength: 64, pattern: '^.{1,64}$' }],
    ['a maxLength over 64', { ...good, maxLength: 200 }],
  ])('reports a header schema with %s', async (_, schema) => {
    const got = await lintWithRule(rule, doc([actor(schema)]));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(/parameters\/0: .*must have schema/);
  });

  it('reports a description that does not rule out PHI', async () => {
    const got = await lintWithRule(rule, doc([actor(good, 'Who acts.')]));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(/never PHI/);
  });
});
