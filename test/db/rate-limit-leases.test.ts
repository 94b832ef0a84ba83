/**
 * Token leases (server/http/rate-limit.ts) against real buckets: a process spends a lease of
 * at most 5% of a bucket locally, sized by its own demand, gives the unspent part back with its
 * next take, and every process sharing one database together admits no more than the bucket
 * grants and refuses nothing under the limit.
 */
import type { FastifyReply } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { connect } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { isApiError } from '../../server/errors.js';
import { leaseSize, takeRequestToken } from '../../server/http/rate-limit.js';
import { type TakeTokenInput, takeToken } from '../../server/repos/rate-limits.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const T0 = 1_800_000_000_000;
const RPS = 100; // leases of at most 5, lasting 50 ms

/** What one request got: admitted or not, and its headers. */
interface Answer {
  ok: boolean;
  headers: Record<string, string>;
}

/** A store that records the database takes it forwards and what each granted. */
function countingStore() {
  const store = {
    takes: [] as TakeTokenInput[],
    granted: [] as number[],
    takeToken: async (db: Db, input: TakeTokenInput) => {
      store.takes.push(input);
      const result = await takeToken(db, input);
      store.granted.push(result.granted);
      return result;
    },
  };
  return store;
}

/** Requests of one process at T0 until its leases have grown to the full 5 (1 + 2 + 4). */
async function warmUp(db: Db, store: ReturnType<typeof countingStore>): Promise<void> {
  for (let i = 0; i < 7; i++) expect((await request(db, store, T0)).ok).toBe(true);
  expect(store.takes.map((t) => t.count)).toEqual([1, 2, 4]);
}

// The database of a describe is emptied between tests but its `Db` object, and so this
// process's leases, stay: each test uses a bucket of its own.
let bucketKey = '';
beforeEach(({ task }) => {
  bucketKey = `key:${task.id}`;
});

async function request(
  db: Db,
  store: ReturnType<typeof countingStore>,
  nowMs: number,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const reply = {
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
  } as unknown as FastifyReply;
  try {
    await takeRequestToken(db, store, reply, bucketKey, RPS, nowMs);
    return { ok: true, headers };
  } catch (error) {
    if (!isApiError(error) || error.code !== 'rate_limited') throw error;
    return { ok: false, headers: { ...headers, ...error.headers } };
  }
}

/** Lets the SQLite state file commit this loop turn, so another connection may write. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

await describeEachDatabase('rate-limit leases', (dialect) => {
  const ctx = useTestDb(dialect);
  const others: Db[] = [];
  /** Another `Db` object on the same database: another server process, or a restart. */
  const reopen = () => {
    const db = connect(ctx.url);
    others.push(db);
    return db;
  };
  afterEach(async () => {
    for (const db of others.splice(0)) await db.close();
  });

  it('admits exactly the capacity in a burst, Remaining counting down, leases doubling to 5%', async () => {
    expect(leaseSize(RPS)).toBe(5);
    const store = countingStore();
    const answers: Answer[] = [];
    for (let i = 0; i < RPS + 3; i++) answers.push(await request(ctx.db, store, T0));
    expect(answers.filter((a) => a.ok)).toHaveLength(RPS);
    expect(answers.slice(0, RPS).every((a) => a.ok)).toBe(true);
    expect(answers.slice(0, RPS).map((a) => Number(a.headers['RateLimit-Remaining']))).toEqual(
      Array.from({ length: RPS }, (_, i) => RPS - 1 - i),
    );
    expect(answers[0]!.headers['RateLimit-Limit']).toBe('100');
    const refused = answers[RPS]!;
    expect(refused.headers).toMatchObject({ 'RateLimit-Remaining': '0', 'Retry-After': '1' });
    // Each lease ran out before its time, so the next asked for twice as many, up to 5:
    // 1 + 2 + 4 + 18 × 5 = 97, a last one granted 3 of 5, then one take per refused request.
    expect(store.takes.slice(0, 22).map((t) => t.count)).toEqual([1, 2, 4, ...Array(19).fill(5)]);
    expect(store.granted.slice(0, 22)).toEqual([1, 2, 4, ...Array(18).fill(5), 3]);
    expect(store.takes).toHaveLength(22 + 3);
  });

  it('lets requests arriving during a take wait for it, the next lease sized for them', async () => {
    const store = countingStore();
    const answers = await Promise.all(Array.from({ length: 5 }, () => request(ctx.db, store, T0)));
    // The first take (1 token) was in flight when the other four came; the second was sized
    // for the four still waiting.
    expect(store.takes.map((t) => t.count)).toEqual([1, 4]);
    expect(answers.map((a) => Number(a.headers['RateLimit-Remaining'])).sort()).toEqual([
      95, 96, 97, 98, 99,
    ]);
    // The sixth needs a new lease: 90 left in the bucket after it, 4 of it unspent.
    expect((await request(ctx.db, store, T0)).headers['RateLimit-Remaining']).toBe('94');
    expect(store.takes.map((t) => t.count)).toEqual([1, 4, 5]);
  });

  it('never lets the requests waiting on a failed take lease 5% each (they ask for one token)', async () => {
    // The first take fails (say the connection pool timed out on a busy machine). Before, each
    // of the 59 requests waiting on it took a lease of its own: 20 leases empty the bucket and
    // the rest were refused with 429 although the process was far below its limit.
    const store = countingStore();
    await warmUp(ctx.db, store);
    let failNext = true;
    const failing = {
      takes: store.takes,
      granted: store.granted,
      takeToken: async (db: Db, input: TakeTokenInput) => {
        if (failNext) {
          failNext = false;
          store.takes.push(input);
          await nextTurn();
          throw new Error('connection pool timed out');
        }
        return store.takeToken(db, input);
      },
    };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, () => request(ctx.db, failing, T0)),
    );
    const failed = outcomes.filter((o) => o.status === 'rejected');
    expect(failed).toHaveLength(1);
    const answers = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(answers.filter((a) => !a.ok)).toEqual([]);
    expect(answers).toHaveLength(59);
    // One failed lease take, then one single token per waiting request.
    expect(store.takes.slice(3).map((t) => t.count ?? 1)).toEqual([5, ...Array(59).fill(1)]);
  });

  it('does not spend a lease older than the 50 ms the bucket takes to refill it, and gives its rest back', async () => {
    const store = countingStore();
    await warmUp(ctx.db, store);
    // A lease of 5: 88 left in the bucket, 4 in the lease.
    expect((await request(ctx.db, store, T0)).headers['RateLimit-Remaining']).toBe('92');
    expect((await request(ctx.db, store, T0 + 49)).headers['RateLimit-Remaining']).toBe('91');
    expect(store.takes).toHaveLength(4);
    // At 50 ms the lease is over: its 3 unspent tokens go back with the next take (the bucket
    // refilled 5 meanwhile: 88 + 5 + 3 = 96), which asks for twice the 2 spent.
    const later = await request(ctx.db, store, T0 + 50);
    expect(store.takes).toHaveLength(5);
    expect(store.takes[4]).toMatchObject({ count: 4, returned: 3 });
    expect(later.headers['RateLimit-Remaining']).toBe('95');
    // A request that read the clock a few ms before the lease was taken may spend it…
    expect((await request(ctx.db, store, T0 + 45)).headers['RateLimit-Remaining']).toBe('94');
    expect(store.takes).toHaveLength(5);
    // …but a clock that went back 50 ms or more does not keep it alive.
    await request(ctx.db, store, T0);
    expect(store.takes).toHaveLength(6);
    expect(store.takes[5]).toMatchObject({ returned: 2 });
  });

  it('admits no more than the capacity across two processes sharing the bucket', async () => {
    const a = { db: ctx.db, store: countingStore() };
    const b = { db: reopen(), store: countingStore() };
    // Three single tokens first, so the last leases can be only partly granted.
    for (let i = 0; i < 3; i++) {
      await takeToken(ctx.db, { bucketKey, capacity: RPS, refillPerSecond: RPS, nowMs: T0 });
    }
    await nextTurn();
    let admitted = 0;
    for (let round = 0; round < 30; round++) {
      for (const side of [a, b]) {
        // Several requests of one process at once, then the other process's.
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => request(side.db, side.store, T0)),
        );
        admitted += answers.filter((x) => x.ok).length;
        await nextTurn();
      }
    }
    expect(admitted).toBe(RPS - 3);
    expect(a.store.takes.length).toBeGreaterThan(1);
    expect(b.store.takes.length).toBeGreaterThan(1);
    // A second later the bucket has refilled, and the stale leases are not spent.
    const refilled = await request(b.db, b.store, T0 + 1000);
    expect(refilled.headers['RateLimit-Remaining']).toBe('99');
  });

  it('loses only the unspent part of the lease on a restart', async () => {
    const store = countingStore();
    // Leases of 1, 2 and 4: 7 tokens taken, 4 spent.
    for (let i = 0; i < 4; i++) expect((await request(ctx.db, store, T0)).ok).toBe(true);
    expect(store.granted).toEqual([1, 2, 4]);
    await nextTurn();
    // A new process (or the same one restarted): the 3 unspent tokens of the lease are gone.
    const restarted = reopen();
    const answers: Answer[] = [];
    for (let i = 0; i < RPS; i++) answers.push(await request(restarted, countingStore(), T0));
    expect(answers.filter((a) => a.ok)).toHaveLength(RPS - 7);
    expect(answers[0]!.headers['RateLimit-Remaining']).toBe(String(RPS - 7 - 1));
  });

  it('takes a new lease when the key’s rate changes', async () => {
    const store = countingStore();
    await request(ctx.db, store, T0);
    const headers: Record<string, string> = {};
    const reply = {
      header: (name: string, value: string) => {
        headers[name] = value;
      },
    } as unknown as FastifyReply;
    await takeRequestToken(ctx.db, store, reply, bucketKey, 200, T0);
    expect(store.takes).toHaveLength(2);
    // A fresh lease at the new rate, sized as a first one.
    expect(store.takes[1]).toMatchObject({ capacity: 200, count: 1 });
    expect(headers['RateLimit-Limit']).toBe('200');
  });

  /**
   * Two processes (two `Db` objects, two pools) each sending `perSecond` requests, one at a
   * time on a simulated clock, for `seconds`, both in the same millisecond: what they admitted
   * and refused together, and the tokens the bucket holds at the end.
   */
  async function twoProcesses(perSecond: number, seconds: number) {
    const sides = [
      { db: ctx.db, store: countingStore(), offsetMs: 0 },
      { db: reopen(), store: countingStore(), offsetMs: 0 },
    ];
    const schedule = sides.flatMap((side) =>
      Array.from({ length: perSecond * seconds }, (_, i) => ({
        side,
        atMs: side.offsetMs + (i * 1000) / perSecond,
      })),
    );
    schedule.sort((x, y) => x.atMs - y.atMs);
    let admitted = 0;
    let refused = 0;
    for (const { side, atMs } of schedule) {
      const answer = await request(side.db, side.store, T0 + Math.floor(atMs));
      if (answer.ok) admitted++;
      else refused++;
      await nextTurn();
    }
    const takes = sides.reduce((n, side) => n + side.store.takes.length, 0);
    const end = T0 + seconds * 1000;
    const bucket = await takeToken(ctx.db, {
      bucketKey,
      capacity: RPS,
      refillPerSecond: RPS,
      nowMs: end,
    });
    return { admitted, refused, takes, bucketLeft: bucket.tokens + 1 };
  }

  it('refuses nothing when two processes together stay under the limit', async () => {
    // 2 × 45/s against 100/s for 3 s. Leases of 5% dropped unspent after 50 ms drew up to
    // 100/s from the bucket per process whatever it spent: two processes emptied it, and then
    // the second of two takes in one millisecond found nothing and was refused.
    const { admitted, refused, takes, bucketLeft } = await twoProcesses(45, 3);
    expect(refused).toBe(0);
    // The bucket lacks only what the two processes' last leases hold (5 each at most).
    expect(bucketLeft).toBeGreaterThanOrEqual(RPS - 2 * 5);
    expect(admitted).toBe(2 * 45 * 3);
    // Leases still spare most database takes.
    expect(takes).toBeLessThan(admitted / 2);
  });

  it('admits no more than the limit allows when two processes together exceed it', async () => {
    // 2 × 80/s against 100/s for 3 s: the bucket (100) plus 3 s of refill (300) at most.
    const { admitted, refused } = await twoProcesses(80, 3);
    expect(admitted).toBeLessThanOrEqual(RPS + RPS * 3);
    expect(admitted).toBeGreaterThanOrEqual(RPS * 3);
    expect(refused).toBe(2 * 80 * 3 - admitted);
  });
});
