import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'tags-in-groups';
const given = (options: { groups?: string[]; declared?: string[]; used: string[] }): Doc => ({
  ...openapi({ '/v1/things': { get: { tags: options.used, responses: {} } } }),
  ...(options.declared ? { tags: options.declared.map((name) => ({ name })) } : {}),
  ...(options.groups ? { 'x-tagGroups': [{ name: 'Group', tags: options.groups }] } : {}),
});

describe(`patient-care/${rule}`, () => {
  it('passes when every used and declared tag is in a group', async () => {
    const doc = given({ groups: ['Things', 'Other'], declared: ['Things'], used: ['Things'] });
    expect(await lintWithRule(rule, doc)).toEqual([]);
  });

  it('does not judge a document without x-tagGroups', async () => {
    expect(await lintWithRule(rule, given({ declared: ['Loose'], used: ['Loose'] }))).toEqual([]);
  });

  it('reports an operation tag in no group, at the tag', async () => {
    const got = await lintWithRule(rule, given({ groups: ['Things'], used: ['Things', 'Stray'] }));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(
      /^#\/paths\/~1v1~1things\/get\/tags\/1: Tag "Stray" of GET \/v1\/things is in no x-tagGroups group/,
    );
  });

  it('reports a declared tag in no group, at its name', async () => {
    const got = await lintWithRule(
      rule,
      given({ groups: ['Things'], declared: ['Things', 'Guide'], used: ['Things'] }),
    );
    expect(got).toEqual([expect.stringMatching(/^#\/tags\/1\/name: Tag "Guide" is declared but/)]);
  });
});
