import { describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  AuditWriter,
  accessHistory,
  checkAuditEntry,
  recordAudit,
} from '../../server/audit/index.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const PHI = ['Anna', 'Smith', '1980-02-03', 'anna@example.org', '+15555550100', 'MRN-1001'];

function entry(patientId: string, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    keyId: newId('key'),
    operationId: 'retrievePatient',
    objectIds: [patientId],
    requestId: newId('req'),
    clientIp: '127.0.0.1',
    outcome: 'success',
    ...overrides,
  };
}

/** Counts transactions, to see batching. */
function countingDb(db: Db): { db: Db; transactions: () => number } {
  let count = 0;
  const wrapped: Db = {
    dialect: db.dialect,
    get: (sql, params) => db.get(sql, params),
    all: (sql, params) => db.all(sql, params),
    run: (sql, params) => db.run(sql, params),
    transaction: (fn, options) => {
      count++;
      return db.transaction(fn, options);
    },
    close: () => db.close(),
  };
  return { db: wrapped, transactions: () => count };
}

describe('audit entry checks', () => {
  it('refuses fields that could carry PHI, naming the field but not the value', () => {
    const patient = newId('pat');
    expect(() => checkAuditEntry(entry(patient))).not.toThrow();
    const bad: Partial<AuditEntry>[] = [
      { objectIds: ['Anna Smith'] },
      { operationId: 'retrieve patient Anna' },
      { requestId: 'MRN-1001' },
      { clientIp: 'anna@example.org' },
      { keyId: 'sk_test_abc' },
      { outcome: 'viewed by Smith' as never },
    ];
    for (const overrides of bad) {
      let message = '';
      try {
        checkAuditEntry(entry(patient, overrides));
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^audit entry field \w+ is not in its expected form$/);
    }
  });
});

await describeEachDatabase('audit trail', (dialect) => {
  const ctx = useTestDb(dialect);

  it("records a write's entry in the write's transaction, and not when it rolls back", async () => {
    const kept = newId('pat');
    const lost = newId('pat');
    await ctx.db.transaction((tx) =>
      recordAudit(tx, entry(kept, { operationId: 'createPatient' })),
    );
    await ctx.db
      .transaction(async (tx) => {
        await recordAudit(tx, entry(lost, { operationId: 'createPatient' }));
        throw new Error('write failed');
      })
      .catch(() => {});
    expect((await accessHistory(ctx.db, kept)).map((r) => r.operationId)).toEqual([
      'createPatient',
    ]);
    expect(await accessHistory(ctx.db, lost)).toEqual([]);
  });

  it('group-commits read entries: one transaction per batch, all present after flush', async () => {
    const patient = newId('pat');
    const counting = countingDb(ctx.db);
    const writer = new AuditWriter(counting.db, { intervalMs: 1000, maxBatch: 100 });
    for (let i = 0; i < 250; i++) expect(writer.push(entry(patient))).toBe(true);
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(counting.transactions()).toBe(3);
    const rows = await accessHistory(ctx.db, patient, { limit: 1000 });
    expect(rows).toHaveLength(250);
    // Newest first by id (ULIDs are time-ordered).
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort().reverse());
    await writer.close();
  });

  it('commits on its own within the interval, and refuses entries once closed or full', async () => {
    const patient = newId('pat');
    const writer = new AuditWriter(ctx.db, { intervalMs: 2, maxQueue: 3 });
    writer.push(entry(patient));
    await expect.poll(async () => (await accessHistory(ctx.db, patient)).length).toBe(1);
    await writer.close();
    expect(writer.push(entry(patient))).toBe(false);

    const small = new AuditWriter(ctx.db, { intervalMs: 10_000, maxQueue: 2 });
    expect([
      small.push(entry(patient)),
      small.push(entry(patient)),
      small.push(entry(patient)),
    ]).toEqual([true, true, false]);
    expect(small.dropped).toBe(1);
    await small.close();
    expect(await accessHistory(ctx.db, patient)).toHaveLength(3);
  });

  it('stores no PHI: every audit value is an id, an operation, an IP, an outcome or a time', async () => {
    const patient = newId('pat');
    const appointment = newId('appt');
    const writer = new AuditWriter(ctx.db);
    writer.push(entry(patient));
    writer.push(
      entry(patient, { operationId: 'listAppointments', objectIds: [appointment, patient] }),
    );
    await ctx.db.transaction((tx) =>
      recordAudit(tx, entry(patient, { outcome: 'denied', keyId: null })),
    );
    await writer.close();
    const rows = await ctx.db.all('SELECT * FROM audit_log');
    const objects = await ctx.db.all('SELECT * FROM audit_objects');
    const dump = JSON.stringify([rows, objects]);
    for (const value of PHI) expect(dump).not.toContain(value);
    const history = await accessHistory(ctx.db, patient);
    expect(history.map((r) => r.outcome).sort()).toEqual(['denied', 'success', 'success']);
    expect(history.find((r) => r.operationId === 'listAppointments')?.objectIds).toEqual([
      appointment,
      patient,
    ]);
  });
});
