import { beforeEach, expect, it } from 'vitest';
import { newId } from '../../server/ids.js';
import { clampLimit } from '../../server/repos/pagination.js';
import {
  insertRecord,
  JSON_TEXT,
  listRecords,
  type RecordQuery,
} from '../../server/repos/records.js';
import { PATIENT, type StoredPatient } from '../../server/resources/patient.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

await describeEachDatabase('cursor pagination', (dialect) => {
  const ctx = useTestDb(dialect);
  // 25 patients, created one second apart; ids[0] is the oldest.
  let ids: string[] = [];

  beforeEach(async () => {
    ids = [];
    await ctx.db.transaction(async (tx) => {
      for (let i = 0; i < 25; i++) {
        const id = newId('pat');
        ids.push(id);
        await insertRecord(PATIENT, tx, {
          id,
          livemode: false,
          created: 1_800_000_000 + i,
        } as StoredPatient);
      }
      await insertRecord(PATIENT, tx, {
        id: newId('pat'),
        livemode: true,
        created: 1_800_000_000,
      } as StoredPatient);
    });
  });

  const page = async (params: Omit<RecordQuery<{ active: boolean }>, 'livemode'>) => {
    const result = await listRecords(PATIENT, ctx.db, { livemode: false, ...params }, JSON_TEXT);
    return { ids: result.data.map((p) => p.id), hasMore: result.hasMore };
  };
  const newestFirst = () => [...ids].reverse();

  it('walks forward with starting_after until has_more is false', async () => {
    const first = await page({ limit: 10 });
    expect(first).toEqual({ ids: newestFirst().slice(0, 10), hasMore: true });
    const second = await page({ limit: 10, startingAfter: first.ids.at(-1)! });
    expect(second).toEqual({ ids: newestFirst().slice(10, 20), hasMore: true });
    const third = await page({ limit: 10, startingAfter: second.ids.at(-1)! });
    expect(third).toEqual({ ids: newestFirst().slice(20), hasMore: false });
    expect(await page({ startingAfter: ids[0]! })).toEqual({ ids: [], hasMore: false });
  });

  it('walks back with ending_before, still newest first within the page', async () => {
    const back = await page({ limit: 10, endingBefore: newestFirst()[20]! });
    expect(back).toEqual({ ids: newestFirst().slice(10, 20), hasMore: true });
    const top = await page({ limit: 10, endingBefore: newestFirst()[5]! });
    expect(top).toEqual({ ids: newestFirst().slice(0, 5), hasMore: false });
    expect(await page({ endingBefore: ids.at(-1)! })).toEqual({ ids: [], hasMore: false });
  });

  it('has_more is false when the page exactly fills the list', async () => {
    expect(await page({ limit: 25 })).toEqual({ ids: newestFirst(), hasMore: false });
    expect((await page({ limit: 24 })).hasMore).toBe(true);
  });

  it('filters on created ranges (unix seconds) and keeps modes apart', async () => {
    const range = await page({ limit: 100, created: { gte: 1_800_000_010, lt: 1_800_000_013 } });
    expect(range.ids).toEqual([ids[12], ids[11], ids[10]]);
    const open = await page({ limit: 100, created: { gt: 1_800_000_022 } });
    expect(open.ids).toEqual([ids[24], ids[23]]);
    expect((await page({ limit: 100, created: { lte: 1_800_000_000 } })).ids).toEqual([ids[0]]);
    expect((await listRecords(PATIENT, ctx.db, { livemode: true }, JSON_TEXT)).data).toHaveLength(
      1,
    );
  });

  it('defaults to 10 and clamps limits to 1..100', async () => {
    expect((await page({})).ids).toHaveLength(10);
    expect(clampLimit(0)).toBe(1);
    expect(clampLimit(1000)).toBe(100);
    expect(clampLimit(undefined)).toBe(10);
  });
});
