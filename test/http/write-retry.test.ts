/**
 * `ctx.write` runs the whole transaction again when PostgreSQL aborts it for a deadlock or a
 * serialization failure (the request answers what a serial run would, never a 500 for the
 * conflict), at most three times, and never for other errors.
 */
import { expect, it } from 'vitest';
import { DbError } from '../../server/db/errors.js';
import type { Db } from '../../server/db/types.js';
import type { AuthenticatedKey } from '../../server/http/auth.js';
import { type ContextInit, createContext } from '../../server/http/context.js';

const deadlock = () => new DbError('serialization_failure', 'deadlock detected', '40P01');

/** A context whose database fails the first `failures` transactions with `error`. */
function contextFailing(failures: number, error: () => Error) {
  const audited: string[][] = [];
  let runs = 0;
  const db = {
    dialect: 'postgres',
    async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
      runs += 1;
      const result = await fn(db as unknown as Db);
      // Aborted at commit, as PostgreSQL reports a deadlock found while the statement waited.
      if (runs <= failures) throw error();
      return result;
    },
  };
  const init = {
    db: db as unknown as Db,
    store: {
      completeIdempotent: async () => {},
      recordAudit: async (_tx: Db, row: { objectIds: readonly string[] }) => {
        audited.push([...row.objectIds]);
      },
    },
    audit: null,
    clock: () => 0,
    key: { id: 'key_1', kind: 'secret', livemode: false } as unknown as AuthenticatedKey,
    requestId: 'req_1',
    idempotencyKey: null,
    clientIp: '127.0.0.1',
    operationId: 'deleteWebhook',
    log: {} as ContextInit['log'],
    idempotency: null,
    checkStatus: () => {},
    allowPrivateWebhookTargets: false,
  } satisfies ContextInit;
  const ctx = createContext(init);
  return { ctx, audited, runs: () => runs };
}

it('decides again after a deadlock and answers the second attempt', async () => {
  const { ctx, audited, runs } = contextFailing(1, deadlock);
  let calls = 0;
  const reply = await ctx.write(async () => {
    calls += 1;
    ctx.audit([`wh_${calls}`]);
    return { status: 200, body: { call: calls } };
  });
  expect(reply).toEqual({ status: 200, body: { call: 2 } });
  expect(runs()).toBe(2);
  // One row per attempt (the first went down with its transaction): the retry starts with an
  // empty list instead of writing the aborted attempt's rows again.
  expect(audited).toEqual([['wh_1'], ['wh_2']]);
});

it('gives up after three aborted attempts', async () => {
  const { ctx, runs } = contextFailing(5, deadlock);
  await expect(ctx.write(async () => ({ status: 200 }))).rejects.toBeInstanceOf(DbError);
  expect(runs()).toBe(3);
});

it('does not repeat a write that failed for another reason', async () => {
  const { ctx, runs } = contextFailing(
    1,
    () => new DbError('unique_violation', 'duplicate', '23505'),
  );
  await expect(ctx.write(async () => ({ status: 200 }))).rejects.toMatchObject({
    code: 'unique_violation',
  });
  expect(runs()).toBe(1);
});
