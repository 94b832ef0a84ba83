import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { leaseDueDeliveries } from '../../server/repos/webhook-deliveries.js';
import { createHttpTransport, type Transport } from '../../server/webhooks/transport.js';
import { type DeliveryWorker, startDeliveryWorker } from '../../server/webhooks/worker.js';
import { postgresAvailable, useTestDb } from '../support/databases.js';
import { addWebhook, deliveriesOf, emit } from './support/fixtures.js';
import { type Receiver, startReceiver, waitFor } from './support/receiver.js';

// Several processes on one PostgreSQL: each worker here has its own connection pool, as a
// separate server process would. Skipped, with the helper's printed notice, without PostgreSQL.
describe.skipIf(!(await postgresAvailable()))('workers sharing PostgreSQL', () => {
  const ctx = useTestDb('postgres', { fresh: 'each' });
  let receiver: Receiver;
  const workers: DeliveryWorker[] = [];
  const pools: Db[] = [];
  const transports: Array<ReturnType<typeof createHttpTransport>> = [];

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    for (const t of transports.splice(0)) t.close();
    await Promise.all(pools.splice(0).map((p) => p.close()));
    await receiver.close();
  });

  function counting(counter: { sent: number }): Transport {
    const inner = createHttpTransport();
    transports.push(inner);
    return async (request) => {
      counter.sent += 1;
      return inner(request);
    };
  }

  it('delivers each event once per endpoint between two workers', async () => {
    const a = await addWebhook(ctx.db, receiver.url('/a'));
    const b = await addWebhook(ctx.db, receiver.url('/b'));
    receiver.secrets.set('/a', a.secret);
    receiver.secrets.set('/b', b.secret);
    receiver.delayMs = 5; // keeps both workers busy at once
    const ids = new Set<string>();
    for (let i = 0; i < 150; i++) ids.add(await emit(ctx.db));
    const counters = [{ sent: 0 }, { sent: 0 }];
    for (const counter of counters) {
      const pool = connect(ctx.url);
      pools.push(pool);
      workers.push(
        startDeliveryWorker({
          db: pool,
          allowPrivateTargets: true,
          transport: counting(counter),
          concurrency: 8,
          pollIntervalMs: 5,
        }),
      );
    }
    await waitFor(() => receiver.received.length >= 300, 30_000, '300 deliveries');
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    const seen = new Map<string, number>();
    for (const r of receiver.received) {
      expect(r.verified).toBe(true);
      const key = `${r.path} ${r.eventId}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(seen.size).toBe(300);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(counters[0]!.sent + counters[1]!.sent).toBe(300);
    // The work really was shared (SKIP LOCKED let both lease at once).
    expect(counters[0]!.sent).toBeGreaterThan(0);
    expect(counters[1]!.sent).toBeGreaterThan(0);
    for (const hook of [a, b]) {
      const rows = await deliveriesOf(ctx.db, hook.id);
      expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    }
  });

  it('takes over a crashed worker’s lease once it expires', async () => {
    const hook = await addWebhook(ctx.db, receiver.url('/a'));
    receiver.secrets.set('/a', hook.secret);
    const eventId = await emit(ctx.db);
    // A worker leases the delivery and dies before sending it.
    const taken = await leaseDueDeliveries(ctx.db, {
      workerId: 'dead-worker',
      nowMs: Date.now(),
      leaseMs: 300,
      limit: 10,
    });
    expect(taken).toHaveLength(1);
    const pool = connect(ctx.url);
    pools.push(pool);
    workers.push(startDeliveryWorker({ db: pool, pollIntervalMs: 10, allowPrivateTargets: true }));
    await waitFor(
      async () => (await deliveriesOf(ctx.db, hook.id))[0]?.status === 'succeeded',
      10_000,
      'the orphaned delivery',
    );
    expect(receiver.received.map((r) => r.eventId)).toEqual([eventId]);
    expect((await deliveriesOf(ctx.db, hook.id))[0]?.attempts).toBe(1);
  });
});
