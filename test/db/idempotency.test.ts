import { expect, it } from 'vitest';
import { runDeferred } from '../../server/db/deferred.js';
import {
  abandonIdempotent,
  beginIdempotent,
  completeIdempotent,
  IDEMPOTENCY_TTL_MS,
  IdempotencyConflictError,
  releaseAbandonedClaims,
  STALE_RUNNING_MS,
} from '../../server/repos/idempotency.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const T0 = 1_800_000_000_000;
const scope = { namespace: 'account', livemode: false, idempotencyKey: 'k-1' };
/** What `completeIdempotent` gets besides the response: the request's claim arguments. */
const claim = { ...scope, requestHash: 'h1', nowMs: T0 };

await describeEachDatabase('idempotency records', (dialect) => {
  const ctx = useTestDb(dialect);
  const begin = (requestHash = 'h1', nowMs = T0) =>
    beginIdempotent(ctx.db, { ...scope, requestHash, nowMs });

  it('starts, then replays the stored response; another body is "reused"', async () => {
    expect(await begin()).toEqual({ state: 'started' });
    expect(await begin()).toEqual({ state: 'in_use' });
    await ctx.db.transaction((tx) =>
      completeIdempotent(tx, { ...claim, status: 201, body: { id: 'pat_1', object: 'patient' } }),
    );
    const replay = await begin('h1', T0 + 1000);
    expect(replay).toMatchObject({
      state: 'replay',
      status: 201,
      body: { id: 'pat_1', object: 'patient' },
    });
    expect(await begin('h2', T0 + 1000)).toEqual({ state: 'reused' });
  });

  it('scopes keys per namespace and mode', async () => {
    expect(await begin()).toEqual({ state: 'started' });
    expect(
      await beginIdempotent(ctx.db, { ...scope, livemode: true, requestHash: 'h1', nowMs: T0 }),
    ).toEqual({
      state: 'started',
    });
    expect(
      await beginIdempotent(ctx.db, {
        ...scope,
        namespace: 'patient:pat_1',
        requestHash: 'h1',
        nowMs: T0,
      }),
    ).toEqual({ state: 'started' });
  });

  it('gives exactly one of many concurrent requests "started"', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => begin()));
    expect(results.filter((r) => r.state === 'started')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'in_use')).toHaveLength(19);
  });

  it('frees an abandoned key, and keeps it running when the write rolled back', async () => {
    await begin();
    await abandonIdempotent(ctx.db, scope);
    expect(await begin()).toEqual({ state: 'started' });
    await ctx.db
      .transaction(async (tx) => {
        await completeIdempotent(tx, { ...claim, status: 200, body: '{}' });
        throw new Error('write failed');
      })
      .catch(() => {});
    expect(await begin()).toEqual({ state: 'in_use' });
  });

  it('lets one request take over a stale running record after 60 s', async () => {
    await begin();
    expect(await begin('h1', T0 + STALE_RUNNING_MS - 1)).toEqual({ state: 'in_use' });
    const takeovers = await Promise.all(
      Array.from({ length: 5 }, () => begin('h1', T0 + STALE_RUNNING_MS)),
    );
    expect(takeovers.filter((r) => r.state === 'started')).toHaveLength(1);
  });

  it('forgets a completed response after 24 h', async () => {
    await begin();
    await ctx.db.transaction((tx) =>
      completeIdempotent(tx, { ...claim, status: 200, body: '{"a":1}' }),
    );
    expect(await begin('h2', T0 + IDEMPOTENCY_TTL_MS - 1)).toEqual({ state: 'reused' });
    expect(await begin('h2', T0 + IDEMPOTENCY_TTL_MS)).toEqual({ state: 'started' });
  });

  it('stores the response even when the claim vanished (a failed group commit dropped it)', async () => {
    await begin();
    await ctx.db.run('DELETE FROM idempotency_keys'); // the claim's batch never reached disk
    await ctx.db.transaction((tx) =>
      completeIdempotent(tx, { ...claim, status: 200, body: { id: 'pat_2' } }),
    );
    expect(await begin('h1', T0 + 1000)).toMatchObject({
      state: 'replay',
      status: 200,
      body: { id: 'pat_2' },
    });
  });

  it('rolls the write back when another request completed the key meanwhile', async () => {
    await begin();
    await ctx.db.run('DELETE FROM idempotency_keys');
    // Without a claim in the way, a second request with the same key started and finished.
    expect(await begin()).toEqual({ state: 'started' });
    await ctx.db.transaction((tx) =>
      completeIdempotent(tx, { ...claim, status: 200, body: { id: 'pat_first' } }),
    );
    await ctx.db.run('CREATE TABLE IF NOT EXISTS probe_writes (id TEXT)');
    const second = ctx.db.transaction(async (tx) => {
      await tx.run('INSERT INTO probe_writes (id) VALUES ($1)', ['pat_second']);
      await completeIdempotent(tx, { ...claim, status: 200, body: { id: 'pat_second' } });
    });
    await expect(second).rejects.toThrow(IdempotencyConflictError);
    // A create's shape: its rows held too, so on PostgreSQL the whole write is one statement
    // without BEGIN, and the stored response's check must refuse inside it.
    const third = ctx.db.transaction(async (tx) => {
      await runDeferred(tx, 'INSERT INTO probe_writes (id) VALUES ($1)', ['pat_third']);
      await completeIdempotent(tx, { ...claim, status: 200, body: { id: 'pat_third' } });
    });
    await expect(third).rejects.toThrow(IdempotencyConflictError);
    expect(await ctx.db.all('SELECT id FROM probe_writes')).toEqual([]);
    expect(await begin('h1', T0 + 1000)).toMatchObject({ body: { id: 'pat_first' } });
  });

  it('frees running claims left by a dead process, keeping completed responses', async () => {
    await begin();
    await beginIdempotent(ctx.db, {
      ...scope,
      idempotencyKey: 'k-2',
      requestHash: 'h1',
      nowMs: T0,
    });
    await ctx.db.transaction((tx) =>
      completeIdempotent(tx, { ...claim, idempotencyKey: 'k-2', status: 200, body: '{}' }),
    );
    expect(await releaseAbandonedClaims(ctx.db)).toBe(1);
    expect(await begin('h1', T0 + 1000)).toEqual({ state: 'started' });
    expect(
      await beginIdempotent(ctx.db, {
        ...scope,
        idempotencyKey: 'k-2',
        requestHash: 'h1',
        nowMs: T0 + 1000,
      }),
    ).toMatchObject({ state: 'replay', status: 200 });
  });
});
