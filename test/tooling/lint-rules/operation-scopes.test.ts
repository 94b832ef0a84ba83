import { describe, expect, it } from 'vitest';
import { type Doc, lintWithRule, openapi } from './lint-rule.js';

const rule = 'operation-scopes';
const get = (operation: Doc) => openapi({ '/v1/things': { get: { responses: {}, ...operation } } });

describe(`patient-care/${rule}`, () => {
  it.each([
    [
      'a scope and the usual key kinds',
      { 'x-scopes': ['patients:read'], 'x-key-kinds': ['secret', 'restricted'] },
    ],
    ['no scope, gated by publishable key', { 'x-scopes': [], 'x-key-kinds': ['publishable'] }],
    [
      'an ephemeral key with a scope it can carry',
      { 'x-scopes': ['patients:read'], 'x-key-kinds': ['ephemeral'] },
    ],
  ])('passes %s', async (_, operation) => {
    expect(await lintWithRule(rule, get(operation))).toEqual([]);
  });

  it.each([
    [
      'missing x-scopes',
      { 'x-key-kinds': ['secret'] },
      '#/paths/~1v1~1things/get',
      'does not declare x-scopes',
    ],
    [
      'missing x-key-kinds',
      { 'x-scopes': ['patients:read'] },
      '#/paths/~1v1~1things/get',
      'does not declare x-key-kinds',
    ],
    [
      'an unknown scope',
      { 'x-scopes': ['patients:browse'], 'x-key-kinds': ['secret'] },
      '#/paths/~1v1~1things/get/x-scopes',
      '"patients:browse"',
    ],
    [
      'an unknown key kind',
      { 'x-scopes': ['patients:read'], 'x-key-kinds': ['admin'] },
      '#/paths/~1v1~1things/get/x-key-kinds',
      '"admin"',
    ],
    [
      'a publishable key on a scoped operation',
      { 'x-scopes': ['patients:read'], 'x-key-kinds': ['publishable'] },
      '#/paths/~1v1~1things/get/x-key-kinds',
      'remove publishable',
    ],
    [
      'an ephemeral key that can never carry the scope',
      { 'x-scopes': ['billing:read'], 'x-key-kinds': ['ephemeral'] },
      '#/paths/~1v1~1things/get/x-key-kinds',
      'billing:read',
    ],
    [
      'no scope but a restricted key',
      { 'x-scopes': [], 'x-key-kinds': ['restricted'] },
      '#/paths/~1v1~1things/get/x-key-kinds',
      'gated by key kind alone',
    ],
  ])('reports %s', async (_, operation, pointer, mention) => {
    const got = await lintWithRule(rule, get(operation));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(new RegExp(`^${pointer.replace(/[~{}]/g, '\\$&')}: `));
    expect(got[0]).toContain(mention);
  });
});
