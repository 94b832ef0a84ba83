import { describe, expect, it } from 'vitest';
import { checkMetadata } from '../../server/domain/serialize.js';
import { ApiError } from '../../server/errors.js';

describe('checkMetadata key length (code points, as JSON Schema counts)', () => {
  const cases: [name: string, key: string, ok: boolean][] = [
    ['one ASCII character', 'a', true],
    ['40 ASCII characters', 'k'.repeat(40), true],
    ['41 ASCII characters', 'k'.repeat(41), false],
    ['40 accented letters', 'é'.repeat(40), true],
    ['21 emoji (42 UTF-16 units)', '😀'.repeat(21), true],
    ['40 emoji', '😀'.repeat(40), true],
    ['41 emoji', '😀'.repeat(41), false],
    ['empty key', '', false],
  ];
  for (const [name, key, ok] of cases) {
    it(`${name}: ${ok ? 'accepted' : 'refused'}`, () => {
      const run = () => checkMetadata({ [key]: 'v' });
      if (ok) expect(run()).toEqual({ [key]: 'v' });
      else expect(run).toThrow(ApiError);
    });
  }
});
