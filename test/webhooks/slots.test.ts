/**
 * The worker's slot bookkeeping on its own (`server/webhooks/slots.ts`): no database, no
 * sockets, a clock the test moves. Every expected value is written out from the rules in
 * docs/design.md#webhooks, not read back from the code.
 */
import { describe, expect, it } from 'vitest';
import { EndpointSlots, type SlotOptions } from '../../server/webhooks/slots.js';

interface Item {
  id: string;
  webhookId: string;
  livemode: boolean;
}

/** `n` test-mode deliveries to `webhookId`, named `<webhookId><k>` from `from` on. */
function items(webhookId: string, n: number, from = 1, livemode = false): Item[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${webhookId}${from + i}`,
    webhookId,
    livemode,
  }));
}

const ids = (list: readonly Item[]) => list.map((item) => item.id);

function setup(overrides: Partial<SlotOptions> = {}) {
  let now = 0;
  const slots = new EndpointSlots<Item, string>({
    concurrency: 4,
    endpointConcurrency: 2,
    pollMs: 25,
    leaseMs: 60_000,
    timeoutMs: 10_000,
    clock: () => now,
    ...overrides,
  });
  return { slots, at: (ms: number) => (now = ms) };
}

describe('per-endpoint slots', () => {
  it('starts at most the cap per endpoint and holds the surplus outside the mode slots', () => {
    const { slots } = setup();
    const started = slots.admit([...items('A', 3), ...items('B', 1)], 0, 'facts-1');
    expect(ids(started)).toEqual(['A1', 'A2', 'B1']);
    expect(slots.endpointInflight('A')).toBe(2);
    expect(slots.endpointInflight('B')).toBe(1);
    expect(slots.inflight(false)).toBe(3);
    expect(slots.inflight(true)).toBe(0);
    // The next lease may take the one free slot and skips the endpoint at its cap.
    expect(slots.plan(false)).toEqual({ limit: 1, excludeWebhookIds: ['A'], leasedAt: 0 });
  });

  it('gives a freed endpoint slot to that endpoint’s oldest held delivery, with its facts', () => {
    const { slots, at } = setup();
    slots.admit(items('A', 4), 0, 'facts-1');
    slots.admit(items('A', 1, 5), 10, 'facts-2');
    at(500);
    expect(slots.endpointFreed('A')).toEqual({
      release: [],
      start: { item: items('A', 1, 3)[0], facts: 'facts-1', fresh: true },
    });
    slots.finished(items('A', 1, 1)[0]!);
    expect(slots.endpointFreed('A').start?.item.id).toBe('A4');
    expect(slots.endpointFreed('A').start).toEqual({
      item: items('A', 1, 5)[0],
      facts: 'facts-2',
      fresh: true,
    });
    // Nothing held any more: the slot just frees.
    expect(slots.endpointFreed('A')).toEqual({ release: [] });
    expect(slots.endpointInflight('A')).toBe(1);
  });

  it('a mode may run one batch past its slots when held deliveries start', () => {
    const { slots } = setup({ concurrency: 2, endpointConcurrency: 1 });
    expect(ids(slots.admit([...items('A', 2), ...items('B', 1)], 0, 'f'))).toEqual(['A1', 'B1']);
    expect(slots.plan(false)).toBeNull();
    slots.endpointFreed('A'); // A1's receiver is done, its record not yet written
    expect(slots.inflight(false)).toBe(3);
  });
});

describe('fairness between endpoints', () => {
  it('one endpoint’s backlog leaves the other slots to other endpoints', () => {
    const { slots } = setup({ concurrency: 8 });
    expect(ids(slots.admit(items('A', 8), 0, 'f'))).toEqual(['A1', 'A2']);
    // Six of A held; six slots free, and the lease skips A.
    expect(slots.plan(false)).toEqual({ limit: 6, excludeWebhookIds: ['A'], leasedAt: 0 });
    expect(ids(slots.admit([...items('B', 3), ...items('C', 1)], 0, 'f'))).toEqual([
      'B1',
      'B2',
      'C1',
    ]);
    expect(slots.plan(false)).toEqual({ limit: 3, excludeWebhookIds: ['A', 'B'], leasedAt: 0 });
  });

  it('live and test deliveries have separate slots', () => {
    const { slots } = setup({ concurrency: 2 });
    slots.admit([...items('T', 1), ...items('U', 1)], 0, 'f');
    expect(slots.plan(false)).toBeNull();
    expect(slots.plan(true)).toEqual({ limit: 2, excludeWebhookIds: [], leasedAt: 0 });
    expect(ids(slots.admit(items('L', 2, 1, true), 0, 'f'))).toEqual(['L1', 'L2']);
    expect([slots.inflight(true), slots.inflight(false)]).toEqual([2, 2]);
  });

  it('after a lease past capped endpoints found nothing, waits a poll interval to lease again', () => {
    const { slots, at } = setup({ concurrency: 8 });
    slots.admit(items('A', 2), 0, 'f');
    at(100);
    const plan = slots.plan(false);
    expect(plan).toEqual({ limit: 6, excludeWebhookIds: ['A'], leasedAt: 100 });
    slots.leasedNone(false, plan!);
    at(124);
    expect(slots.plan(false)).toBeNull();
    // The wait is the mode's own: live is not held back (an endpoint is in one mode, so
    // skipping A there costs nothing).
    expect(slots.plan(true)).toEqual({ limit: 8, excludeWebhookIds: ['A'], leasedAt: 124 });
    at(125);
    expect(slots.plan(false)).toEqual({ limit: 6, excludeWebhookIds: ['A'], leasedAt: 125 });
  });

  it('an empty lease that skipped nothing does not wait', () => {
    const { slots, at } = setup();
    const plan = slots.plan(false);
    slots.leasedNone(false, plan!);
    at(1);
    expect(slots.plan(false)).toEqual({ limit: 4, excludeWebhookIds: [], leasedAt: 1 });
  });
});

describe('stall handling', () => {
  // A held delivery leased at 0 starts only while now + 10 000 (deadline) + 5 000 (margin to
  // record it) is within its 60 000 ms lease: up to 45 000.
  it('starts a held delivery that can end within its lease, hands back one that cannot', () => {
    const { slots, at } = setup({ endpointConcurrency: 1 });
    slots.admit(items('A', 3), 0, 'f');
    at(45_000);
    expect(slots.endpointFreed('A')).toEqual({
      release: [],
      start: { item: items('A', 1, 2)[0], facts: 'f', fresh: false },
    });
    at(45_001);
    expect(slots.endpointFreed('A')).toEqual({ release: items('A', 1, 3) });
    expect(slots.endpointInflight('A')).toBe(0);
  });

  it('skips every expired held delivery to start the first one still in time', () => {
    const { slots, at } = setup({ concurrency: 8, endpointConcurrency: 1 });
    slots.admit(items('A', 3), 0, 'old');
    slots.admit(items('A', 1, 4), 20_000, 'new');
    at(50_000);
    expect(slots.endpointFreed('A')).toEqual({
      release: items('A', 2, 2),
      start: { item: items('A', 1, 4)[0], facts: 'new', fresh: false },
    });
  });

  it('facts read less than 1 s before the start are fresh, older ones are read again', () => {
    const { slots, at } = setup({ endpointConcurrency: 1 });
    slots.admit(items('A', 3), 0, 'f');
    at(999);
    expect(slots.endpointFreed('A').start?.fresh).toBe(true);
    at(1_000);
    expect(slots.endpointFreed('A').start?.fresh).toBe(false);
  });

  it('once stopping, hands back every held delivery and ends idle', () => {
    const { slots } = setup({ endpointConcurrency: 1 });
    const started = slots.admit([...items('A', 3), ...items('B', 2)], 0, 'f');
    expect(ids(started)).toEqual(['A1', 'B1']);
    slots.stop();
    // B's delivery is still in flight; A's has ended: only A's held one is handed back now.
    slots.finished(started[0]!);
    expect(ids(slots.endpointFreed('A').release)).toEqual(['A2', 'A3']);
    expect(ids(slots.releaseIdle())).toEqual([]);
    expect(slots.idle).toBe(false);
    slots.finished(started[1]!);
    expect(ids(slots.endpointFreed('B').release)).toEqual(['B2']);
    expect(slots.idle).toBe(true);
  });

  it('releaseIdle hands back what endpoints with nothing in flight still hold', () => {
    const { slots } = setup({ endpointConcurrency: 1 });
    const started = slots.admit(items('A', 2), 0, 'f');
    slots.stop();
    expect(ids(slots.releaseIdle())).toEqual([]);
    // A delivery whose facts could not be read again frees both slots without a handoff.
    slots.finished(started[0]!);
    expect(slots.endpointFreed('A')).toEqual({ release: items('A', 1, 2) });
    expect(slots.idle).toBe(true);
  });
});
