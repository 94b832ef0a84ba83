/**
 * `WORKERS=N npm start` (server/cluster.ts): which counts are accepted, and SQLite refused
 * for more than one process with one line naming the fix.
 */
import { expect, it } from 'vitest';
import { workerCount } from '../../server/cluster.js';

const PG = 'postgres://127.0.0.1:5432/app';

it('runs one process unless WORKERS asks for more', () => {
  expect(workerCount({})).toEqual({ count: 1 });
  expect(workerCount({ WORKERS: ' ' })).toEqual({ count: 1 });
  expect(workerCount({ WORKERS: '1', DATABASE_URL: 'sqlite:./data/x.db' })).toEqual({ count: 1 });
  expect(workerCount({ WORKERS: '4', DATABASE_URL: PG })).toEqual({ count: 4 });
  expect(workerCount({ WORKERS: '2', DATABASE_URL: 'postgresql://db/app' })).toEqual({
    count: 2,
  });
});

it('refuses counts that are not whole numbers from 1 to 256', () => {
  for (const WORKERS of ['0', '-1', '2.5', 'two', '257']) {
    expect(workerCount({ WORKERS, DATABASE_URL: PG })).toEqual({
      error: 'WORKERS must be a whole number from 1 to 256',
    });
  }
});

it('refuses several processes on SQLite, the default database included', () => {
  const error =
    'WORKERS=2 needs PostgreSQL (DATABASE_URL=postgres://…): a SQLite file is served by one process';
  expect(workerCount({ WORKERS: '2' })).toEqual({ error });
  expect(workerCount({ WORKERS: '2', DATABASE_URL: 'sqlite:./data/x.db' })).toEqual({ error });
});
