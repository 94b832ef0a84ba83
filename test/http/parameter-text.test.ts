/**
 * Parameters read from text as their schemas say, and the walk that finds values no
 * database stores as sent — the pure parts of the validation layer, without an app.
 */
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../server/errors.js';
import { compileParameterReader } from '../../server/http/parameter-text.js';
import { checkStorable } from '../../server/http/storable-values.js';
import { createValidators } from '../../server/http/validation.js';
import { findValue } from '../../server/http/value-walk.js';

const { parameters: ajv } = createValidators([
  { $id: 'urn:test:Range', type: 'object', properties: { gt: { type: 'integer' } } },
]);
const read = compileParameterReader(ajv, {
  type: 'object',
  properties: {
    limit: { type: 'integer' },
    ratio: { type: 'number' },
    active: { type: 'boolean' },
    ids: { type: 'array', items: { type: 'integer' } },
    range: { $ref: 'urn:test:Range' },
    name: { type: 'string' },
  },
});
const parsed = (query: Record<string, unknown>) => {
  const copy = { ...query };
  read(copy);
  return copy;
};

describe('parameters read from text', () => {
  it('reads decimal integers, numbers, booleans, lists and deepObject members', () => {
    expect(
      parsed({
        limit: '10',
        ratio: '1.5e2',
        active: 'false',
        ids: '7',
        range: { gt: '-3' },
        name: '010',
      }),
    ).toEqual({ limit: 10, ratio: 150, active: false, ids: [7], range: { gt: -3 }, name: '010' });
    expect(parsed({ limit: '-0' }).limit).toBe(0);
    expect(Object.is(parsed({ limit: '-0' }).limit, -0)).toBe(false);
  });

  it.each(['0x10', '1e1', ' 1', '1 ', '+1', '01', '1.0', '', 'Infinity'])(
    'leaves %j as text, for the schema to refuse',
    (text) => {
      expect(parsed({ limit: text }).limit).toBe(text);
    },
  );

  it('leaves a list for a scalar as a list, and booleans other than true/false as text', () => {
    expect(parsed({ limit: ['1'] }).limit).toEqual(['1']);
    expect(parsed({ active: 'TRUE' }).active).toBe('TRUE');
  });
});

describe('values no database stores as sent', () => {
  const refusal = (value: unknown) => {
    try {
      checkStorable(value);
      return null;
    } catch (error) {
      return { param: (error as ApiError).param, message: (error as ApiError).message };
    }
  };

  it('names the field of a NUL, an inexact integer, a NUL or __proto__ key', () => {
    expect(refusal({ a: [{ b: 'x\u0000' }] })?.param).toBe('a[0][b]');
    expect(refusal({ n: 2 ** 53 })?.message).toMatch(/9007199254740991/);
    expect(refusal({ m: { 'k\u0000': 'v' } })?.param).toBe('m');
    expect(refusal(JSON.parse('{"m":{"__proto__":"v"}}'))?.message).toMatch(/__proto__/);
    expect(refusal({ ok: ['\u202e', 1.5, -(2 ** 53 - 1), '__proto__'] })).toBeNull();
  });

  it('walks 1,000,000 levels without recursion', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(findValue(deep, (v) => typeof v === 'string', false)?.path).toHaveLength(1_000_000);
  });
});
