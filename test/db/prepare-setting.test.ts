/**
 * `DATABASE_PREPARE`: named prepared statements by default, unnamed ones with `off` (a pooler in
 * transaction mode, where a name prepared on one server connection is missing on the next).
 */
import { describe, expect, it } from 'vitest';
import { preparedStatementsOf } from '../../server/db/open.js';
import { explainOpenError } from '../../server/db/open-errors.js';
import { openPostgres } from '../../server/db/postgres.js';
import { openTestDb, postgresAvailable } from '../support/databases.js';

it('reads on/off (true/false, 1/0), on when unset', () => {
  expect(preparedStatementsOf({})).toBe(true);
  expect(preparedStatementsOf({ DATABASE_PREPARE: ' ' })).toBe(true);
  expect(preparedStatementsOf({ DATABASE_PREPARE: 'ON' })).toBe(true);
  expect(preparedStatementsOf({ DATABASE_PREPARE: 'off' })).toBe(false);
  expect(preparedStatementsOf({ DATABASE_PREPARE: 'false' })).toBe(false);
  expect(preparedStatementsOf({ DATABASE_PREPARE: '0' })).toBe(false);
});

it('refuses anything else with one line naming the variable', () => {
  let error: unknown;
  try {
    preparedStatementsOf({ DATABASE_PREPARE: 'sometimes' });
  } catch (caught) {
    error = caught;
  }
  expect(explainOpenError(error, 'postgres://db/app')).toBe(
    'DATABASE_PREPARE must be on or off (also true/false, 1/0)',
  );
});

describe.skipIf(!(await postgresAvailable()))('on PostgreSQL', () => {
  /** Statements the one connection of a pool of one holds prepared after some work. */
  async function preparedAfterWork(prepare: boolean): Promise<number> {
    const test = await openTestDb('postgres');
    const db = openPostgres(test.url, 1, prepare);
    try {
      await db.all('SELECT version FROM schema_migrations WHERE version > $1', [0]);
      await db.transaction(async (tx) => {
        await tx.run('UPDATE schema_migrations SET name = name WHERE version = $1', [1]);
      });
      await db.volatile('SELECT version FROM schema_migrations WHERE version = $1', [1]);
      const rows = await db.pool.query('SELECT COUNT(*) AS n FROM pg_prepared_statements');
      return Number(rows.rows[0].n);
    } finally {
      await db.close();
      await test.dispose();
    }
  }

  it('prepares statements by name by default', async () => {
    expect(await preparedAfterWork(true)).toBeGreaterThan(0);
  });

  it('prepares none with DATABASE_PREPARE=off', async () => {
    expect(await preparedAfterWork(false)).toBe(0);
  });
});
