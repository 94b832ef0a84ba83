import { expect, it } from 'vitest';
import { newId } from '../../server/ids.js';
import {
  getAppointment,
  insertAppointment,
  listAppointments,
  modifyAppointment,
} from '../../server/repos/appointments.js';
import {
  dueClaims,
  getClaim,
  insertClaim,
  listClaims,
  modifyClaim,
} from '../../server/repos/claims.js';
import { insertPatient } from '../../server/repos/patients.js';
import { consumeToken, insertToken } from '../../server/repos/tokens.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

await describeEachDatabase('appointments, claims, tokens', (dialect) => {
  const ctx = useTestDb(dialect);

  async function newPatient(): Promise<string> {
    const id = newId('pat');
    await ctx.db.transaction((tx) =>
      insertPatient(tx, { id, livemode: false, created: 1_800_000_000 }),
    );
    return id;
  }

  it('stores, updates and filters appointments', async () => {
    const p1 = await newPatient();
    const p2 = await newPatient();
    const doc = (patient: string, status: string) => ({
      id: newId('appt'),
      object: 'appointment',
      livemode: false,
      created: 1_800_000_000,
      patient,
      status,
    });
    const a = doc(p1, 'proposed');
    const b = doc(p2, 'booked');
    await ctx.db.transaction(async (tx) => {
      await insertAppointment(tx, a);
      await insertAppointment(tx, b);
    });
    const done = await modifyAppointment(ctx.db, a.id, false, (stored) => ({
      ...stored,
      status: 'cancelled',
    }));
    expect(done?.change?.status).toBe('cancelled');
    expect(await modifyAppointment(ctx.db, a.id, true, (stored) => stored)).toBeUndefined();
    expect((await getAppointment(ctx.db, a.id, false))?.status).toBe('cancelled');
    const ids = async (params: object) =>
      (await listAppointments(ctx.db, { livemode: false, ...params })).data.map((x) => x.id);
    expect(await ids({})).toEqual([b.id, a.id]);
    expect(await ids({ patient: p1 })).toEqual([a.id]);
    expect(await ids({ status: 'booked' })).toEqual([b.id]);
  });

  it('moves a claim only from the expected status, and finds claims due', async () => {
    const patient = await newPatient();
    const claim = {
      id: newId('clm'),
      livemode: false,
      created: 1_800_000_000,
      patient,
      status: 'submitted',
    };
    await ctx.db.transaction((tx) => insertClaim(tx, claim, 5000));
    expect((await dueClaims(ctx.db, 4999)).length).toBe(0);
    expect((await dueClaims(ctx.db, 5000)).map((c) => c.id)).toEqual([claim.id]);
    const move = async (from: string, to: string) =>
      (
        await modifyClaim(ctx.db, claim.id, false, (stored) =>
          stored.status === from
            ? { doc: { ...stored, status: to }, nextActionAt: null }
            : undefined,
        )
      )?.change !== undefined;
    expect(await move('submitted', 'accepted')).toBe(true);
    expect(await move('submitted', 'rejected')).toBe(false);
    expect((await getClaim(ctx.db, claim.id, false))?.status).toBe('accepted');
    expect(await dueClaims(ctx.db, 10_000)).toEqual([]);
    expect((await listClaims(ctx.db, { livemode: false, patient })).data).toHaveLength(1);
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
