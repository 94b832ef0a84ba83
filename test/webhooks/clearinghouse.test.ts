import { expect, it } from 'vitest';
import { connect } from '../../server/db/open.js';
import { newId } from '../../server/ids.js';
import { listEvents } from '../../server/repos/events.js';
import { getRecord, insertRecord } from '../../server/repos/records.js';
import { CLAIM, type StoredClaim } from '../../server/resources/claim.js';
import { PATIENT, type StoredPatient } from '../../server/resources/patient.js';
import { startClearinghouse } from '../../server/webhooks/clearinghouse.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const T0 = 1_800_000_000_000;
const DELAY = 2000;

interface Claim {
  id: string;
  status: string;
  amount_allowed: number | null;
  amount_paid: number | null;
  patient_responsibility: number | null;
  denial_reason: string | null;
  adjudicated_at: number | null;
  updated: number;
}

interface StoredEvent {
  type: string;
  data: { object: Claim; previous_attributes?: Record<string, unknown> };
  request: unknown;
}

// [member_id (null = self_pay), the statuses it passes through after `submitted`, final amounts]
const OUTCOMES: Array<[string | null, string[], Partial<Claim>]> = [
  ['REJECT0000', ['rejected'], { amount_paid: null, patient_responsibility: null }],
  [
    'DENY00000',
    ['accepted', 'denied'],
    { amount_allowed: 0, amount_paid: 0, patient_responsibility: 10_000 },
  ],
  [
    'PARTIAL000',
    ['accepted', 'partially_paid'],
    { amount_allowed: 10_000, amount_paid: 8000, patient_responsibility: 2000 },
  ],
  [
    'W123456789',
    ['accepted', 'paid'],
    { amount_allowed: 10_000, amount_paid: 10_000, patient_responsibility: 0 },
  ],
  [
    null,
    ['accepted', 'paid'],
    { amount_allowed: 10_000, amount_paid: 0, patient_responsibility: 10_000 },
  ],
];

await describeEachDatabase('test clearinghouse', (dialect) => {
  const ctx = useTestDb(dialect);

  async function submit(memberId: string | null, livemode = false): Promise<string> {
    const created = Math.floor(T0 / 1000);
    const patient = { id: newId('pat'), object: 'patient', livemode, created, updated: created };
    const claim = {
      id: newId('clm'),
      object: 'claim',
      livemode,
      created,
      updated: created,
      patient: patient.id,
      appointment: null,
      status: 'submitted',
      billing_type: memberId === null ? 'self_pay' : 'insurance',
      insurance:
        memberId === null ? null : { payer_id: 'P1', member_id: memberId, group_number: null },
      currency: 'usd',
      amount_total: 10_000,
      amount_allowed: null,
      amount_paid: null,
      patient_responsibility: null,
      denial_reason: null,
      submitted_at: created,
      adjudicated_at: null,
      metadata: {},
    };
    await ctx.db.transaction(async (tx) => {
      await insertRecord(PATIENT, tx, patient as StoredPatient);
      await insertRecord(CLAIM, tx, claim as StoredClaim);
    });
    return claim.id;
  }

  it.each(OUTCOMES)('member_id %s → %j, one event per move', async (memberId, path, amounts) => {
    const id = await submit(memberId);
    let now = T0;
    const sim = startClearinghouse({
      db: ctx.db,
      clock: () => now,
      delayMs: DELAY,
      intervalMs: 1e9,
    });
    try {
      now = T0 + 500;
      expect(await sim.tick()).toBe(0); // not yet: the delay has not passed
      for (const [i, status] of path.entries()) {
        now = T0 + (i + 1) * (DELAY + 1000);
        expect(await sim.tick()).toBe(1);
        expect((await getRecord(CLAIM, ctx.db, id, false))?.status).toBe(status);
        expect(await sim.tick()).toBe(0); // each move waits its own delay
      }
      now += 10 * DELAY;
      expect(await sim.tick()).toBe(0); // terminal: nothing more
    } finally {
      await sim.stop();
    }
    const claim = (await getRecord(CLAIM, ctx.db, id, false))!;
    expect(claim).toMatchObject(amounts);
    expect(claim.adjudicated_at).toBe(Math.floor(now / 1000) - 10 * (DELAY / 1000));
    if (memberId === 'REJECT0000' || memberId === 'DENY00000')
      expect(claim.denial_reason).toEqual(expect.any(String));
    const events = (
      await listEvents<StoredEvent>(ctx.db, { livemode: false, limit: 100 })
    ).data.reverse();
    expect(events.map((e) => e.type)).toEqual(path.map((s) => `claim.${s}`));
    let previous = 'submitted';
    for (const event of events) {
      expect(event.data.object.id).toBe(id);
      expect(event.data.previous_attributes).toMatchObject({ status: previous });
      expect(event.request).toEqual({ id: null, idempotency_key: null });
      previous = event.data.object.status;
    }
  });

  it('leaves live claims to a real clearinghouse', async () => {
    const id = await submit('W123456789', true);
    const sim = startClearinghouse({
      db: ctx.db,
      clock: () => T0 + 60_000,
      delayMs: DELAY,
      intervalMs: 1e9,
    });
    expect(await sim.tick()).toBe(0);
    await sim.stop();
    expect((await getRecord(CLAIM, ctx.db, id, true))?.status).toBe('submitted');
  });

  it('moves each claim once when two simulators race', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => submit('W123456789')));
    // PostgreSQL: two connections, as two processes would have. SQLite: one process.
    const other = dialect === 'postgres' ? connect(ctx.url) : ctx.db;
    const clock = () => T0 + 10_000;
    const a = startClearinghouse({ db: ctx.db, clock, delayMs: DELAY, intervalMs: 1e9 });
    const b = startClearinghouse({ db: other, clock, delayMs: DELAY, intervalMs: 1e9 });
    try {
      const moved = await Promise.all([a.tick(), b.tick()]);
      expect(moved[0] + moved[1]).toBe(10);
    } finally {
      await a.stop();
      await b.stop();
      if (other !== ctx.db) await other.close();
    }
    const events = await listEvents(ctx.db, { livemode: false, limit: 100 });
    expect(events.data.map((e) => e.type)).toEqual(ids.map(() => 'claim.accepted'));
  });
});
