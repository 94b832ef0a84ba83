/**
 * The `Prefer` parser (server/http/prefer.ts) against RFC 7240 §2: quoted and bare values,
 * several preferences and fields, whitespace, the case of names and values, parameters that
 * belong to their preference, first-wins, and broken elements skipped without losing the rest.
 */
import { describe, expect, it } from 'vitest';
import { parsePrefer, preferenceValue } from '../../server/http/prefer.js';

/** The preferences as plain data, for `toEqual`. */
function plain(header: string | string[] | undefined) {
  return Object.fromEntries(
    [...parsePrefer(header)].map(([name, p]) => [
      name,
      { value: p.value, parameters: Object.fromEntries(p.parameters) },
    ]),
  );
}

describe('parsePrefer', () => {
  it('a bare value and a quoted one are the same value', () => {
    expect(preferenceValue('handling=strict', 'handling')).toBe('strict');
    expect(preferenceValue('handling="strict"', 'handling')).toBe('strict');
  });

  it('several preferences, with whitespace anywhere the grammar allows it', () => {
    expect(plain(' respond-async , wait = 100,\thandling = "lenient" ')).toEqual({
      'respond-async': { value: undefined, parameters: {} },
      wait: { value: '100', parameters: {} },
      handling: { value: 'lenient', parameters: {} },
    });
  });

  it('names are case-insensitive, values case-sensitive', () => {
    expect(preferenceValue('HANDLING=strict', 'handling')).toBe('strict');
    expect(preferenceValue('handling=Strict', 'handling')).toBe('Strict');
  });

  it('parameters belong to their preference, names lower-cased, first of a name kept', () => {
    expect(plain('return=minimal; Foo="a;b,c"; foo=2;bar, handling=strict')).toEqual({
      return: { value: 'minimal', parameters: { foo: 'a;b,c', bar: undefined } },
      handling: { value: 'strict', parameters: {} },
    });
    expect(preferenceValue('return=minimal; handling=strict', 'handling')).toBeUndefined();
  });

  it('the first instance of a preference counts', () => {
    expect(preferenceValue('handling=lenient, handling=strict', 'handling')).toBe('lenient');
  });

  it('several header fields are one list', () => {
    expect(preferenceValue(['return=minimal', 'handling="strict"'], 'handling')).toBe('strict');
  });

  it('quoted-pairs are undone; commas and semicolons inside quotes are text', () => {
    expect(preferenceValue('x="a\\"b\\\\c", handling=strict', 'x')).toBe('a"b\\c');
    expect(preferenceValue('x="a,handling=strict"', 'handling')).toBeUndefined();
  });

  it('an empty value is no value; empty list elements are ignored', () => {
    expect(plain(', ,handling="", ,wait=,')).toEqual({
      handling: { value: undefined, parameters: {} },
      wait: { value: undefined, parameters: {} },
    });
  });

  it('a broken preference is skipped, the others kept', () => {
    expect(plain('handling="strict, wait=5')).toEqual({});
    expect(plain('a b, handling=strict')).toEqual({
      handling: { value: 'strict', parameters: {} },
    });
    expect(plain('=x, handling=strict, @y')).toEqual({
      handling: { value: 'strict', parameters: {} },
    });
    expect(plain('handling=strict"x", wait=5')).toEqual({
      wait: { value: '5', parameters: {} },
    });
  });

  it('nothing to parse', () => {
    expect(plain(undefined)).toEqual({});
    expect(plain('')).toEqual({});
    expect(preferenceValue(undefined, 'handling')).toBeUndefined();
  });

  it('a header at the size Node allows parses in one pass', () => {
    // 16 KiB of preferences and of an unclosed quote: linear, not one rescan per element.
    const many = Array.from({ length: 2000 }, (_, i) => `p${i}=${i}`).join(',');
    expect(parsePrefer(many).size).toBe(2000);
    expect(parsePrefer(`x="${'a,'.repeat(8000)}`).size).toBe(0);
  });
});
