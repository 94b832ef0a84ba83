import { expect, it } from 'vitest';
import { newId } from '../../server/ids.js';
import {
  getRecord,
  insertRecord,
  JSON_TEXT,
  listRecords,
  modifyRecord,
  type RecordQuery,
} from '../../server/repos/records.js';
import {
  PATIENT,
  type PatientCriteria,
  type StoredPatient,
} from '../../server/resources/patient.js';
import { ConflictError } from '../../server/sql/errors.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

function patient(overrides: Partial<StoredPatient> = {}): StoredPatient {
  return {
    id: newId('pat'),
    livemode: false,
    created: 1_800_000_000,
    active: true,
    name: { family: 'Smith', given: ['Anna', 'Maria'] },
    birth_date: '1980-02-03',
    email: 'Anna.Smith@example.org',
    phone: '+15555550100',
    identifiers: [{ type: 'MR', system: 'urn:mrn:clinic', value: '1001' }],
    ...overrides,
  } as StoredPatient;
}

await describeEachDatabase('patients repository', (dialect) => {
  const ctx = useTestDb(dialect);
  const tx = <T>(fn: Parameters<typeof ctx.db.transaction<T>>[0]) => ctx.db.transaction(fn);

  it('stores and returns the whole object, per mode', async () => {
    const p = patient({ metadata: { ward: '3' } } as Partial<StoredPatient>);
    await tx((t) => insertRecord(PATIENT, t, p as StoredPatient));
    expect(await getRecord(PATIENT, ctx.db, p.id, false)).toEqual(p);
    expect(await getRecord(PATIENT, ctx.db, p.id, true)).toBeUndefined();
  });

  it('rejects a duplicate MR identifier in the same mode as a conflict without PHI', async () => {
    await tx((t) => insertRecord(PATIENT, t, patient()));
    const err = await tx((t) => insertRecord(PATIENT, t, patient())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).reason).toBe('mrn_duplicate');
    expect((err as Error).message).not.toContain('1001');
    // Other mode, other system, or another identifier type: no conflict.
    await tx((t) => insertRecord(PATIENT, t, patient({ livemode: true })));
    await tx((t) =>
      insertRecord(
        PATIENT,
        t,
        patient({ identifiers: [{ type: 'MR', system: 'urn:other', value: '1001' }] }),
      ),
    );
    await tx((t) =>
      insertRecord(
        PATIENT,
        t,
        patient({ identifiers: [{ type: 'MB', system: 'urn:mrn:clinic', value: '1001' }] }),
      ),
    );
  });

  it('lets concurrent creates with one MRN produce exactly one patient', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => tx((t) => insertRecord(PATIENT, t, patient()))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConflictError);
    }
  });

  it('treats the same MRN twice on one patient as one, and updates keep their own MRN', async () => {
    const mrn = { type: 'MR' as const, system: 'urn:mrn:clinic', value: '2002' };
    const p = patient({ identifiers: [mrn, mrn] });
    await tx((t) => insertRecord(PATIENT, t, p as StoredPatient));
    const kept = await modifyRecord(PATIENT, ctx.db, p.id, false, (stored) => ({
      ...stored,
      active: false,
      updated: 1_800_000_100,
    }));
    expect(kept?.change?.active).toBe(false);
    const other = patient();
    await tx((t) => insertRecord(PATIENT, t, other as StoredPatient));
    await expect(
      modifyRecord(PATIENT, ctx.db, other.id, false, (stored) => ({
        ...stored,
        identifiers: [mrn],
      })),
    ).rejects.toBeInstanceOf(ConflictError);
    const missing = patient({ identifiers: [] });
    expect(await modifyRecord(PATIENT, ctx.db, missing.id, false, () => missing)).toBeUndefined();
  });

  it('searches PHI fields, AND-ed: name prefixes case-insensitive, exact others', async () => {
    const anna = patient();
    const bob = patient({
      name: { family: 'Smithson', given: ['Bob'] },
      birth_date: '1990-01-01',
      email: 'bob@example.org',
      phone: '+15555550199',
      identifiers: [{ type: 'MR', system: 'urn:mrn:clinic', value: '3003' }],
    });
    const zoe = patient({
      name: { family: 'Jones', given: ['Zoë'] },
      email: 'zoe@example.org',
      phone: '+15555550123',
      identifiers: [{ type: 'MR', system: 'urn:mrn:clinic', value: '4004' }],
    });
    for (const p of [anna, bob, zoe]) await tx((t) => insertRecord(PATIENT, t, p as StoredPatient));
    const ids = async (params: Omit<RecordQuery<PatientCriteria>, 'livemode'>) =>
      (await listRecords(PATIENT, ctx.db, { livemode: false, ...params })).data
        .map((p) => p.id)
        .sort();

    expect(await ids({ familyName: 'SMI' })).toEqual([anna.id, bob.id].sort());
    expect(await ids({ familyName: 'smiths' })).toEqual([bob.id]);
    expect(await ids({ givenName: 'mar' })).toEqual([anna.id]);
    expect(await ids({ givenName: 'ZO' })).toEqual([zoe.id]);
    expect(await ids({ givenName: 'ZOË' })).toEqual([zoe.id]);
    // Case-insensitive, not accent-insensitive.
    expect(await ids({ givenName: 'zoe' })).toEqual([]);
    expect(await ids({ familyName: 'smi', birthDate: '1990-01-01' })).toEqual([bob.id]);
    expect(await ids({ email: 'ANNA.smith@example.org' })).toEqual([anna.id]);
    expect(await ids({ phone: '+15555550199' })).toEqual([bob.id]);
    expect(await ids({ identifier: { system: 'urn:mrn:clinic', value: '4004' } })).toEqual([
      zoe.id,
    ]);
    expect(await ids({ identifier: { value: '3003' } })).toEqual([bob.id]);
    expect(await ids({ familyName: 'jones', email: 'bob@example.org' })).toEqual([]);
    expect(await ids({})).toHaveLength(3);
    expect(
      (await listRecords(PATIENT, ctx.db, { livemode: true, familyName: 'smi' })).data,
    ).toEqual([]);
  });

  it('lists newest first with an active filter', async () => {
    const older = patient({ identifiers: [] });
    const newer = patient({ identifiers: [], active: false });
    await tx((t) => insertRecord(PATIENT, t, older as StoredPatient));
    await tx((t) => insertRecord(PATIENT, t, newer as StoredPatient));
    const all = await listRecords(PATIENT, ctx.db, { livemode: false }, JSON_TEXT);
    expect(all.data.map((p) => p.id)).toEqual([newer.id, older.id]);
    // The stored text is the object as written, ready to be spliced into a list reply.
    expect(all.data.map((p) => JSON.parse(p.json) as unknown)).toEqual([newer, older]);
    const active = await listRecords(PATIENT, ctx.db, { livemode: false, active: true }, JSON_TEXT);
    expect(active.data.map((p) => p.id)).toEqual([older.id]);
  });
});
