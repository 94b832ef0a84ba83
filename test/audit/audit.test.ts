import { afterEach, describe, expect, it, vi } from 'vitest';
import { GENESIS_HASH } from '../../server/audit/chain.js';
import {
  type AuditEntry,
  AuditWriter,
  accessHistory,
  checkAuditEntry,
  recordAudit,
} from '../../server/audit/index.js';
import { migrate } from '../../server/db/migrate.js';
import { initial } from '../../server/db/migrations/0001-initial.js';
import { migrations } from '../../server/db/migrations/index.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { auditEntry, expectFieldEntriesStored, fieldEntries } from '../support/audit-entries.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const PHI = ['Anna', 'Smith', '1980-02-03', 'anna@example.org', '+15555550100', 'MRN-1001'];

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
    expect(() => checkAuditEntry(auditEntry(patient))).not.toThrow();
    const bad: Partial<AuditEntry>[] = [
      { objectIds: ['Anna Smith'] },
      { operationId: 'retrieve patient Anna' },
      { requestId: 'MRN-1001' },
      { clientIp: 'anna@example.org' },
      { keyId: 'sk_test_abc' },
      { outcome: 'viewed by Smith' as never },
      { actor: 'Anna Smith' },
      { actor: 'a'.repeat(65) },
    ];
    for (const overrides of bad) {
      let message = '';
      try {
        checkAuditEntry(auditEntry(patient, overrides));
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/^audit entry field \w+ is not in its expected form$/);
    }
  });
});

describe('AuditWriter pacing after a slow commit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * A database whose transactions take 40 ms (fake time) and count themselves. Returns how
   * many transactions had started 10 ms after an entry pushed once a first slow batch is done.
   */
  async function startedSoonAfter(dialect: 'sqlite' | 'postgres'): Promise<number> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let started = 0;
    const tx = {
      dialect,
      run: async () => ({ changes: 1 }),
      // The hash chain's head, as migration 0010 leaves it.
      get: async () => ({ seq: 0, hash: GENESIS_HASH }),
    } as unknown as Db;
    const slow = {
      dialect,
      transaction: async <T>(fn: (tx: Db) => Promise<T>): Promise<T> => {
        started++;
        await new Promise((resolve) => setTimeout(resolve, 40));
        return fn(tx);
      },
    } as unknown as Db;
    const writer = new AuditWriter(slow, { intervalMs: 5 });
    writer.push(auditEntry(newId('pat')));
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(1);
    writer.push(auditEntry(newId('pat')));
    await vi.advanceTimersByTimeAsync(10);
    const soon = started;
    await vi.advanceTimersByTimeAsync(500);
    expect(started).toBe(2);
    return soon;
  }

  it('after a failed batch, waits 100 ms before the next attempt, even with a full batch queued', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let attempts = 0;
    const down = {
      dialect: 'postgres',
      transaction: async () => {
        attempts++;
        throw new Error('connection refused');
      },
    } as unknown as Db;
    const errors: unknown[] = [];
    const writer = new AuditWriter(down, {
      intervalMs: 5,
      maxBatch: 2,
      onError: (err) => errors.push(err),
    });
    writer.push(auditEntry(newId('pat')));
    await vi.advanceTimersByTimeAsync(6);
    expect(attempts).toBe(1);
    // A full batch queued while failing does not bring the retry forward.
    writer.push(auditEntry(newId('pat')));
    writer.push(auditEntry(newId('pat')));
    await vi.advanceTimersByTimeAsync(90);
    expect(attempts).toBe(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(attempts).toBe(2);
    expect(errors).toHaveLength(2);
    expect(writer.pending).toBe(3);
  });

  it('on PostgreSQL, commits beside the event loop: the next batch waits only its interval', async () => {
    expect(await startedSoonAfter('postgres')).toBe(2);
  });

  it('on SQLite, whose commits stop the loop, waits four times the last commit', async () => {
    expect(await startedSoonAfter('sqlite')).toBe(1);
  });
});

await describeEachDatabase('audit trail', (dialect) => {
  const ctx = useTestDb(dialect);

  it("records a write's entry in the write's transaction, and not when it rolls back", async () => {
    const kept = newId('pat');
    const lost = newId('pat');
    await ctx.db.transaction((tx) =>
      recordAudit(tx, auditEntry(kept, { operationId: 'createPatient' })),
    );
    await ctx.db
      .transaction(async (tx) => {
        await recordAudit(tx, auditEntry(lost, { operationId: 'createPatient' }));
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
    for (let i = 0; i < 250; i++) expect(writer.push(auditEntry(patient))).toBe(true);
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(counting.transactions()).toBe(3);
    const rows = await accessHistory(ctx.db, patient, { limit: 1000 });
    expect(rows).toHaveLength(250);
    // Newest first by id (ULIDs are time-ordered).
    expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort().reverse());
    await writer.close();
  });

  it('commits a waited-for entry without its interval; pushed ones still wait for theirs', async () => {
    const [waited, pushed] = [newId('pat'), newId('pat')];
    const counting = countingDb(ctx.db);
    // An interval no test waits out: only group commit can settle the record() calls.
    const writer = new AuditWriter(counting.db, { intervalMs: 60_000 });
    writer.push(auditEntry(pushed));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writer.pending).toBe(1);
    // Reads arriving in one turn share a batch; those queued while it commits share the next.
    const first = Array.from({ length: 20 }, () => writer.record(auditEntry(waited)));
    await Promise.all(first);
    const second = Array.from({ length: 20 }, () => writer.record(auditEntry(waited)));
    await Promise.all(second);
    expect(writer.pending).toBe(0);
    expect(counting.transactions()).toBe(2);
    expect(await accessHistory(ctx.db, waited, { limit: 100 })).toHaveLength(40);
    expect(await accessHistory(ctx.db, pushed)).toHaveLength(1);
    await writer.close();
  });

  it('commits on its own within the interval, and refuses entries once closed or full', async () => {
    const patient = newId('pat');
    const writer = new AuditWriter(ctx.db, { intervalMs: 2, maxQueue: 3 });
    writer.push(auditEntry(patient));
    await expect.poll(async () => (await accessHistory(ctx.db, patient)).length).toBe(1);
    await writer.close();
    expect(writer.push(auditEntry(patient))).toBe(false);

    const small = new AuditWriter(ctx.db, { intervalMs: 10_000, maxQueue: 2 });
    expect([
      small.push(auditEntry(patient)),
      small.push(auditEntry(patient)),
      small.push(auditEntry(patient)),
    ]).toEqual([true, true, false]);
    expect(small.dropped).toBe(1);
    await small.close();
    expect(await accessHistory(ctx.db, patient)).toHaveLength(3);
  });

  it('stores no PHI: every audit value is an id, an operation, an IP, an outcome or a time', async () => {
    const patient = newId('pat');
    const appointment = newId('appt');
    const writer = new AuditWriter(ctx.db);
    writer.push(auditEntry(patient));
    writer.push(
      auditEntry(patient, { operationId: 'listAppointments', objectIds: [appointment, patient] }),
    );
    await ctx.db.transaction((tx) =>
      recordAudit(tx, auditEntry(patient, { outcome: 'denied', keyId: null })),
    );
    await writer.close();
    const rows = await ctx.db.all('SELECT * FROM audit_log');
    const objects = await ctx.db.all('SELECT * FROM audit_objects');
    const batchObjects = await ctx.db.all('SELECT * FROM audit_batch_objects');
    expect(batchObjects.length).toBeGreaterThan(0);
    const dump = JSON.stringify([rows, objects, batchObjects]);
    for (const value of PHI) expect(dump).not.toContain(value);
    const history = await accessHistory(ctx.db, patient);
    expect(history.map((r) => r.outcome).sort()).toEqual(['denied', 'success', 'success']);
    expect(history.find((r) => r.operationId === 'listAppointments')?.objectIds).toEqual([
      appointment,
      patient,
    ]);
  });
});

/** The request ids of `objectId`'s history, newest first: entries are told apart by them. */
async function historyRequests(db: Db, objectId: string): Promise<Array<string | null>> {
  return (await accessHistory(db, objectId, { limit: 1000 })).map((row) => row.requestId);
}

/** Writes an entry the way the service did before migration 0002: one audit_objects row per object. */
async function insertLegacy(db: Db, objectIds: string[]): Promise<string> {
  const id = newId('aud');
  const requestId = newId('req');
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids)
        VALUES ($1, $2, NULL, 'retrievePatient', $3, '10.0.0.1', 'success', $4)`,
      [id, Date.now(), requestId, JSON.stringify(objectIds)],
    );
    for (const objectId of objectIds) {
      await tx.run('INSERT INTO audit_objects (object_id, audit_id) VALUES ($1, $2)', [
        objectId,
        id,
      ]);
    }
  });
  return requestId;
}

await describeEachDatabase('audit objects indexed per batch', (dialect) => {
  const ctx = useTestDb(dialect);

  it('finds each entry of a batch under the objects it read only, once', async () => {
    const [p1, p2, appt] = [newId('pat'), newId('pat'), newId('appt')];
    const counting = countingDb(ctx.db);
    const writer = new AuditWriter(counting.db, { intervalMs: 10_000 });
    const a = auditEntry(p1);
    const b = auditEntry(p2);
    // The same object twice in one entry, and a second reader of p1 in the same batch.
    const c = auditEntry(p1, { operationId: 'listAppointments', objectIds: [appt, p1, appt] });
    for (const e of [a, b, c]) writer.push(e);
    await writer.close();
    expect(counting.transactions()).toBe(1);

    expect(await historyRequests(ctx.db, p1)).toEqual([c.requestId, a.requestId]);
    expect(await historyRequests(ctx.db, p2)).toEqual([b.requestId]);
    const apptHistory = await accessHistory(ctx.db, appt);
    expect(apptHistory.map((r) => r.requestId)).toEqual([c.requestId]);
    expect(apptHistory[0]!.objectIds).toEqual([appt, p1]);

    // One index row per distinct object of the batch, none in the per-entry table.
    const batches = await ctx.db.all<{ batch_id: string }>(
      'SELECT DISTINCT batch_id FROM audit_log WHERE request_id IN ($1, $2, $3)',
      [a.requestId, b.requestId, c.requestId],
    );
    expect(batches).toHaveLength(1);
    const indexed = await ctx.db.all<{ object_id: string }>(
      'SELECT object_id FROM audit_batch_objects WHERE batch_id = $1 ORDER BY object_id',
      [batches[0]!.batch_id],
    );
    expect(indexed.map((r) => r.object_id)).toEqual([appt, p1, p2].sort());
    const legacy = await ctx.db.all('SELECT * FROM audit_objects WHERE object_id IN ($1, $2, $3)', [
      p1,
      p2,
      appt,
    ]);
    expect(legacy).toEqual([]);
  });

  it('stores every entry of a large batch, once each', async () => {
    // 450 entries (on PostgreSQL one JSON parameter per table); each entry reads its own
    // patient plus one shared one.
    const shared = newId('pat');
    const entries = Array.from({ length: 450 }, () => auditEntry(newId('pat')));
    for (const e of entries) e.objectIds = [e.objectIds[0]!, shared];
    const writer = new AuditWriter(ctx.db, { intervalMs: 10_000, maxBatch: 1000 });
    for (const e of entries) writer.push(e);
    await writer.close();
    const stored = await ctx.db.all<{ request_id: string; object_ids: string }>(
      'SELECT request_id, object_ids FROM audit_log WHERE request_id IS NOT NULL',
    );
    const byRequest = new Map(stored.map((r) => [r.request_id, r.object_ids]));
    for (const e of entries) {
      expect(JSON.parse(byRequest.get(e.requestId!) ?? 'null')).toEqual(e.objectIds);
    }
    expect(await historyRequests(ctx.db, entries[399]!.objectIds[0]!)).toEqual([
      entries[399]!.requestId,
    ]);
    const sharedRows = await ctx.db.all('SELECT * FROM audit_batch_objects WHERE object_id = $1', [
      shared,
    ]);
    expect(sharedRows).toHaveLength(1);
    expect((await accessHistory(ctx.db, shared, { limit: 500 })).length).toBe(450);
  });

  it('stores each field of a batched entry as given, absent ones as NULL', async () => {
    const patient = newId('pat');
    const entries = fieldEntries(patient);
    const writer = new AuditWriter(ctx.db, { intervalMs: 10_000 });
    writer.push(entries.full);
    writer.push(entries.bare);
    await writer.close();
    await expectFieldEntriesStored(ctx.db, patient, entries);
  });

  it('makes each write-path entry a batch of its own', async () => {
    const [p1, p2] = [newId('pat'), newId('pat')];
    const first = auditEntry(p1, { operationId: 'updatePatient', objectIds: [p1, p1] });
    const second = auditEntry(p2, { operationId: 'updatePatient' });
    await ctx.db.transaction(async (tx) => {
      await recordAudit(tx, first);
      await recordAudit(tx, second);
    });
    const rows = await ctx.db.all<{ batch_id: string | null }>(
      'SELECT batch_id FROM audit_log WHERE request_id IN ($1, $2)',
      [first.requestId, second.requestId],
    );
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.batch_id)).size).toBe(2);
    expect(rows.every((r) => r.batch_id?.startsWith('audb_'))).toBe(true);
    expect(await historyRequests(ctx.db, p1)).toEqual([first.requestId]);
    expect(await historyRequests(ctx.db, p2)).toEqual([second.requestId]);
  });

  it('merges rows indexed the old way with new ones, newest first, limit applied to both', async () => {
    const patient = newId('pat');
    const writer = new AuditWriter(ctx.db, { intervalMs: 10_000 });
    const older = auditEntry(patient);
    writer.push(older);
    await writer.flush();
    const legacy = await insertLegacy(ctx.db, [patient, newId('appt')]);
    const newer = auditEntry(patient);
    writer.push(newer);
    await writer.close();
    expect(await historyRequests(ctx.db, patient)).toEqual([
      newer.requestId,
      legacy,
      older.requestId,
    ]);
    const limited = await accessHistory(ctx.db, patient, { limit: 2 });
    expect(limited.map((r) => r.requestId)).toEqual([newer.requestId, legacy]);
  });
});

await describeEachDatabase('audit rows from before migration 0002', (dialect) => {
  const ctx = useTestDb(dialect, { migrate: false });

  it('stay in the history after the migration, beside new ones', async () => {
    expect(await migrate(ctx.db, [initial])).toEqual([1]);
    const patient = newId('pat');
    const before = [await insertLegacy(ctx.db, [patient]), await insertLegacy(ctx.db, [patient])];
    // Up to today's schema: the rows written now have every later column too (0006's version).
    expect(await migrate(ctx.db, migrations)).toEqual(migrations.slice(1).map((m) => m.version));
    const after = auditEntry(patient);
    await ctx.db.transaction((tx) => recordAudit(tx, after));
    expect(await historyRequests(ctx.db, patient)).toEqual([after.requestId, ...before.reverse()]);
    // The new table is append-only like the others.
    await expect(ctx.db.run('DELETE FROM audit_batch_objects')).rejects.toThrow(/append-only/);
    await expect(ctx.db.run("UPDATE audit_batch_objects SET object_id = 'pat_x'")).rejects.toThrow(
      /append-only/,
    );
  });
});
