import { expect, it } from 'vitest';
import { newId } from '../../server/ids.js';
import { getRecord, insertRecord, listRecords, modifyRecord } from '../../server/repos/records.js';
import { consumeToken, insertToken } from '../../server/repos/tokens.js';
import { APPOINTMENT, type StoredAppointment } from '../../server/resources/appointment.js';
import { CLAIM, type StoredClaim } from '../../server/resources/claim.js';
import { PATIENT, type StoredPatient } from '../../server/resources/patient.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

await describeEachDatabase('appointments, claims, tokens', (dialect) => {
  const ctx = useTestDb(dialect);

  async function newPatient(): Promise<string> {
    const id = newId('pat');
    await ctx.db.transaction((tx) =>
      insertRecord(PATIENT, tx, { id, livemode: false, created: 1_800_000_000 } as StoredPatient),
    );
    return id;
  }

  it('stores, updates and filters appointments', async () => {
    const p1 = await newPatient();
    const p2 = await newPatient();
    const doc = (patient: string, status: StoredAppointment['status']) =>
      ({
        id: newId('appt'),
        object: 'appointment',
        livemode: false,
        created: 1_800_000_000,
        patient,
        status,
      }) as StoredAppointment;
    const a = doc(p1, 'proposed');
    const b = doc(p2, 'booked');
    await ctx.db.transaction(async (tx) => {
      await insertRecord(APPOINTMENT, tx, a);
      await insertRecord(APPOINTMENT, tx, b);
    });
    const done = await modifyRecord(APPOINTMENT, ctx.db, a.id, false, (stored) => ({
      ...stored,
      status: 'cancelled' as const,
    }));
    expect(done?.change?.status).toBe('cancelled');
    expect(await modifyRecord(APPOINTMENT, ctx.db, a.id, true, (stored) => stored)).toBeUndefined();
    expect((await getRecord(APPOINTMENT, ctx.db, a.id, false))?.status).toBe('cancelled');
    const ids = async (params: object) =>
      (await listRecords(APPOINTMENT, ctx.db, { livemode: false, ...params })).data.map(
        (x) => x.id,
      );
    expect(await ids({})).toEqual([b.id, a.id]);
    expect(await ids({ patient: p1 })).toEqual([a.id]);
    expect(await ids({ status: 'booked' })).toEqual([b.id]);
  });

  it('moves a claim only from the expected status', async () => {
    const patient = await newPatient();
    const claim = {
      id: newId('clm'),
      livemode: false,
      created: 1_800_000_000,
      patient,
      status: 'submitted',
    } as StoredClaim;
    await ctx.db.transaction((tx) => insertRecord(CLAIM, tx, claim));
    type Status = StoredClaim['status'];
    const move = async (from: Status, to: Status) =>
      (
        await modifyRecord(CLAIM, ctx.db, claim.id, false, (stored) =>
          stored.status === from ? { ...stored, status: to } : undefined,
        )
      )?.change !== undefined;
    expect(await move('submitted', 'accepted')).toBe(true);
    expect(await move('submitted', 'rejected')).toBe(false);
    expect((await getRecord(CLAIM, ctx.db, claim.id, false))?.status).toBe('accepted');
    expect((await listRecords(CLAIM, ctx.db, { livemode: false, patient })).data).toHaveLength(1);
  });

  it('uses a token once, refuses expired, used and unknown ones', async () => {
    const token = {
      id: newId('tok'),
      livemode: false,
      type: 'patient_intake',
      keyId: null,
      created: 1000,
      expiresAt: 1600,
      data: { name: { family: 'Doe' } },
    };
    await insertToken(ctx.db, token);
    const use = (nowSeconds: number, id = token.id) =>
      ctx.db.transaction((tx) => consumeToken(tx, { id, livemode: false, nowSeconds }));
    const results = await Promise.all([use(1100), use(1100), use(1100)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.reason)).toEqual(['used', 'used']);
    const first = results.find((r) => r.ok);
    expect(first?.ok && first.token.data).toEqual({ name: { family: 'Doe' } });
    const late = { ...token, id: newId('tok') };
    await insertToken(ctx.db, late);
    expect(await use(1600, late.id)).toEqual({ ok: false, reason: 'expired' });
    expect(await use(1100, newId('tok'))).toEqual({ ok: false, reason: 'missing' });
  });
});
