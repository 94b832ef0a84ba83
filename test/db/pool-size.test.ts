/** `DATABASE_POOL_SIZE`: the PostgreSQL pool per process, and one line for a bad value. */
import { expect, it } from 'vitest';
import { poolSizeOf } from '../../server/db/open.js';
import { explainOpenError } from '../../server/db/open-errors.js';

it('reads a whole number from 1 to 1000, or leaves the default', () => {
  expect(poolSizeOf({})).toBeUndefined();
  expect(poolSizeOf({ DATABASE_POOL_SIZE: ' ' })).toBeUndefined();
  expect(poolSizeOf({ DATABASE_POOL_SIZE: '20' })).toBe(20);
  expect(poolSizeOf({ DATABASE_POOL_SIZE: '1000' })).toBe(1000);
});

it('refuses anything else with one line naming the variable', () => {
  for (const value of ['0', '1001', '2.5', 'ten', '-3']) {
    let error: unknown;
    try {
      poolSizeOf({ DATABASE_POOL_SIZE: value });
    } catch (caught) {
      error = caught;
    }
    expect(explainOpenError(error, 'postgres://db/app')).toBe(
      'DATABASE_POOL_SIZE must be a whole number from 1 to 1000',
    );
  }
});
