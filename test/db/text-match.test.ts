import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeName, prefixUpperBound } from '../../server/sql/text-match.js';

/** Code-point order, the order both databases compare stored names in: UTF-8's byte order. */
function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Names of any code points, the ASCII and surrogate edges among them. */
const NAME = fc.string({ unit: 'binary', maxLength: 8 }).filter((s) => s.isWellFormed());

describe('prefix ranges', () => {
  it('every string starting with the prefix is in [prefix, bound), and the bound does not start with it', () => {
    fc.assert(
      fc.property(NAME, NAME, (prefix, rest) => {
        const bound = prefixUpperBound(prefix);
        const name = prefix + rest;
        expect(compare(name, prefix)).toBeGreaterThanOrEqual(0);
        if (bound === undefined) return;
        expect(compare(name, bound)).toBeLessThan(0);
        expect(bound.startsWith(prefix)).toBe(false);
        expect(compare(prefix, bound)).toBeLessThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('the bound is the prefix with its last code point incremented, skipping surrogates', () => {
    expect(prefixUpperBound('smi')).toBe('smj');
    expect(prefixUpperBound('a~')).toBe('a\x7f');
    expect(prefixUpperBound('a\ud7fe')).toBe('a\ud7ff');
    expect(prefixUpperBound('a\ud7ff')).toBe('a\ue000');
    expect(prefixUpperBound('a\uffff')).toBe('a\u{10000}');
    expect(prefixUpperBound('a\u{1f600}')).toBe('a\u{1f601}');
    expect(prefixUpperBound('a\u{10ffff}')).toBe('b');
    expect(prefixUpperBound('\u{10ffff}')).toBeUndefined();
    expect(prefixUpperBound('')).toBeUndefined();
  });
});

describe('name normal form', () => {
  it('is NFC, trimmed and lower case, with or without the ASCII shortcut', () => {
    fc.assert(
      fc.property(NAME, (name) => {
        expect(normalizeName(name)).toBe(name.normalize('NFC').trim().toLowerCase());
      }),
      { numRuns: 2000 },
    );
    expect(normalizeName('  Zoe\u0308 ')).toBe('zoë');
    expect(normalizeName(' Rivera ')).toBe('rivera');
  });
});
