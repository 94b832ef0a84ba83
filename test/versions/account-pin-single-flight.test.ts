/**
 * The account-pin cache shares one read per database: requests that find it cold at the same
 * moment wait for the same query, on both databases; a write during that read keeps its
 * (possibly stale) answer out of the cache.
 */
import { expect, it } from 'vitest';
import type { Db } from '../../server/db/types.js';
import { cachedAccountApiVersion, setAccountApiVersion } from '../../server/keys/account.js';
import { versions } from '../../server/versioning/index.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';
import { makeKey } from '../support/keys.js';

/** `db` with its reads of the account row counted. */
function counting(db: Db): { db: Db; reads: () => number } {
  let reads = 0;
  const wrapped: Db = {
    dialect: db.dialect,
    get: (sql, params) => {
      if (sql.includes('FROM account')) reads++;
      return db.get(sql, params);
    },
    all: (sql, params) => db.all(sql, params),
    run: (sql, params) => db.run(sql, params),
    transaction: (fn, options) => db.transaction(fn, options),
    close: () => db.close(),
  };
  return { db: wrapped, reads: () => reads };
}

await describeEachDatabase('account pin single flight', (dialect) => {
  const ctx = useTestDb(dialect);

  it('fifty cold requests at once make one read and all get the pin', async () => {
    await makeKey(ctx.db);
    const { db, reads } = counting(ctx.db);
    const now = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => cachedAccountApiVersion(db, now)),
    );
    expect(reads()).toBe(1);
    expect(new Set(answers)).toEqual(new Set([versions.latest]));
    // Warm now: answered at once, without a promise.
    expect(cachedAccountApiVersion(db, now + 10)).toBe(versions.latest);
    // Expired: one more read for the next burst.
    await Promise.all([
      cachedAccountApiVersion(db, now + 2000),
      cachedAccountApiVersion(db, now + 2000),
    ]);
    expect(reads()).toBe(2);
  });

  it('a pin moved while a read runs is not overwritten by that read', async () => {
    await makeKey(ctx.db);
    const { db } = counting(ctx.db);
    const now = Date.now() + 10_000;
    const before = cachedAccountApiVersion(db, now);
    await setAccountApiVersion(db, '2026-11-01', now);
    await before;
    expect(await cachedAccountApiVersion(db, now + 1)).toBe('2026-11-01');
  });
});
