/**
 * The bounds gathered from a schema before Ajv runs (`contract/schema-bounds.ts`,
 * docs/design.md#validation-cost): which bound a value breaks first, and that a bound is
 * applied only where no branch of the schema would accept the value.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../contract/route-types.js';
import { findBoundViolation, schemaBounds } from '../../contract/schema-bounds.js';

const components: Record<string, JsonSchema> = {
  Scope: { type: 'string', enum: ['a', 'b'] },
  Node: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 3 },
      children: { type: 'array', items: { $ref: 'Node' } },
    },
  },
};
const lookup = (ref: string) => components[ref];
const first = (schema: JsonSchema, value: unknown) =>
  findBoundViolation(value, schemaBounds(schema, lookup));

describe('schema bounds', () => {
  const params: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      scopes: { type: 'array', maxItems: 3, uniqueItems: true, items: { $ref: 'Scope' } },
      name: { type: 'string', maxLength: 4 },
      metadata: {
        type: 'object',
        maxProperties: 2,
        additionalProperties: { type: 'string', maxLength: 5 },
      },
    },
  };

  it('an array over maxItems is named, whatever its items', () => {
    const scopes = Array.from({ length: 100_000 }, (_, i) => i);
    expect(first(params, { scopes })).toEqual({ path: ['scopes'], keyword: 'maxItems', limit: 3 });
  });

  it('strings count code points (an emoji is one), objects their keys', () => {
    expect(first(params, { name: '😀😀😀😀' })).toBeUndefined();
    expect(first(params, { name: 'abcde' })).toMatchObject({
      path: ['name'],
      keyword: 'maxLength',
    });
    expect(first(params, { metadata: { a: '1', b: '2', c: '3' } })).toMatchObject({
      path: ['metadata'],
      keyword: 'maxProperties',
    });
    expect(first(params, { metadata: { a: '123456' } })).toMatchObject({ path: ['metadata', 'a'] });
  });

  it('a closed object with more keys than it names: its first unknown key', () => {
    expect(first(params, { scopes: [], x: 1, name: 'a', metadata: {}, y: 2 })).toEqual({
      path: [],
      keyword: 'additionalProperties',
      key: 'x',
    });
    // As many keys as it names: left to Ajv, which ranks the errors as before.
    expect(first(params, { x: 1 })).toBeUndefined();
  });

  it('oneOf: the loosest bound of the branches that take the type; null branches bound nothing', () => {
    const schema: JsonSchema = {
      oneOf: [
        { type: 'string', maxLength: 2 },
        { type: 'string', maxLength: 5 },
        { type: 'array', maxItems: 1 },
        { type: 'null' },
      ],
    };
    expect(first(schema, 'abcd')).toBeUndefined();
    expect(first(schema, 'abcdef')).toMatchObject({ keyword: 'maxLength', limit: 5 });
    expect(first(schema, [1, 2])).toMatchObject({ keyword: 'maxItems', limit: 1 });
    // A branch without a bound for the type: no bound at all.
    expect(first({ anyOf: [{ type: 'string', maxLength: 1 }, {}] }, 'abc')).toBeUndefined();
  });

  it('allOf: the tightest', () => {
    const schema: JsonSchema = { allOf: [{ type: 'string', maxLength: 5 }, { maxLength: 2 }] };
    expect(first(schema, 'abc')).toMatchObject({ keyword: 'maxLength', limit: 2 });
  });

  it('a recursive schema is gathered once: bounded where first reached, open below', () => {
    expect(first({ $ref: 'Node' }, { name: 'toolong' })).toMatchObject({ path: ['name'] });
    let value: Record<string, unknown> = { name: 'toolong' };
    for (let i = 0; i < 50_000; i++) value = { children: [value] };
    expect(first({ $ref: 'Node' }, value)).toBeUndefined();
  });
});
