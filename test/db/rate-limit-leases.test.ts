/**
 * Token leases (server/http/rate-limit.ts) against real buckets: a process spends a lease of
 * 5% of a bucket locally, and every process sharing one database together admits no more than
 * the bucket grants.
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
const RPS = 100; // lease of 5

/** What one request got: admitted or not, and its headers. */
interface Answer {
  ok: boolean;
  headers: Record<string, string>;
}

/** A store that counts the database takes it forwards. */
function countingStore() {
  const store = {
    takes: [] as TakeTokenInput[],
    takeToken: (db: Db, input: TakeTokenInput) => {
      store.takes.push(input);
      return takeToken(db, input);
    },
  };
  return store;
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

  it('leases 5% of the bucket: a burst admits exactly the capacity, Remaining counts down', async () => {
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
    // One database take per lease of 5, then one per refused request.
    expect(store.takes).toHaveLength(RPS / 5 + 3);
    expect(store.takes[0]!.count).toBe(5);
  });

  it('lets requests arriving during a take wait for it instead of taking leases of their own', async () => {
    const store = countingStore();
    const answers = await Promise.all(Array.from({ length: 5 }, () => request(ctx.db, store, T0)));
    expect(store.takes).toHaveLength(1);
    expect(answers.map((a) => Number(a.headers['RateLimit-Remaining'])).sort()).toEqual([
      95, 96, 97, 98, 99,
    ]);
    // The sixth needs a new lease: 90 left in the bucket after it, 4 of it unspent.
    expect((await request(ctx.db, store, T0)).headers['RateLimit-Remaining']).toBe('94');
    expect(store.takes).toHaveLength(2);
  });

  it('never lets the requests waiting on a failed take lease 5% each (they ask for one token)', async () => {
    // The first take fails (say the connection pool timed out on a busy machine). Before, each
    // of the 59 requests waiting on it took a lease of its own: 20 leases empty the bucket and
    // the rest were refused with 429 although the process was far below its limit.
    const store = countingStore();
    let failNext = true;
    const failing = {
      takes: store.takes,
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
    expect(store.takes.map((t) => t.count ?? 1)).toEqual([5, ...Array(59).fill(1)]);
  });

  it('does not spend a lease older than the 50 ms the bucket takes to refill it', async () => {
    const store = countingStore();
    expect((await request(ctx.db, store, T0)).headers['RateLimit-Remaining']).toBe('99');
    expect((await request(ctx.db, store, T0 + 49)).ok).toBe(true);
    expect(store.takes).toHaveLength(1);
    // At 50 ms the three unspent tokens are dropped; the bucket has refilled the 5 taken.
    const later = await request(ctx.db, store, T0 + 50);
    expect(store.takes).toHaveLength(2);
    expect(later.headers['RateLimit-Remaining']).toBe('99');
    // A request that read the clock a few ms before the lease was taken may spend it…
    expect((await request(ctx.db, store, T0 + 45)).headers['RateLimit-Remaining']).toBe('98');
    expect(store.takes).toHaveLength(2);
    // …but a clock that went back 50 ms or more does not keep it alive.
    await request(ctx.db, store, T0);
    expect(store.takes).toHaveLength(3);
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
    for (let i = 0; i < 3; i++) expect((await request(ctx.db, store, T0)).ok).toBe(true);
    await nextTurn();
    // A new process (or the same one restarted): the 2 unspent tokens of the lease are gone.
    const restarted = reopen();
    const answers: Answer[] = [];
    for (let i = 0; i < RPS; i++) answers.push(await request(restarted, countingStore(), T0));
    expect(answers.filter((a) => a.ok)).toHaveLength(RPS - 5);
    expect(answers[0]!.headers['RateLimit-Remaining']).toBe(String(RPS - 5 - 1));
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
    expect(store.takes[1]).toMatchObject({ capacity: 200, count: 10 });
    expect(headers['RateLimit-Limit']).toBe('200');
  });
});
