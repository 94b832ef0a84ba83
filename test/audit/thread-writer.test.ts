/**
 * The read-audit writer `npm start` uses on a SQLite file: batches committed by a worker
 * thread with its own connection. Checked against the same database the service reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessHistory, openAuditWriter, ThreadAuditWriter } from '../../server/audit/index.js';
import { openDb } from '../../server/db/open.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { auditEntry, expectFieldEntriesStored, fieldEntries } from '../support/audit-entries.js';

describe('ThreadAuditWriter (SQLite file)', () => {
  let dir: string;
  let db: Db;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-thread-'));
    db = await openDb(`sqlite:${join(dir, 'pc.db')}`);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is the writer chosen for a SQLite file', async () => {
    const writer = openAuditWriter(db);
    expect(writer).toBeInstanceOf(ThreadAuditWriter);
    await writer.close();
  });

  it('commits every pushed entry, in batches, visible to the main connection after flush', async () => {
    const writer = openAuditWriter(db, { intervalMs: 2 });
    const patients = Array.from({ length: 5 }, () => newId('pat'));
    for (let i = 0; i < 1000; i++) expect(writer.push(auditEntry(patients[i % 5]!))).toBe(true);
    await writer.flush();
    expect(writer.pending).toBe(0);
    const [{ n } = { n: 0 }] = await db.all<{ n: number }>('SELECT COUNT(*) AS n FROM audit_log');
    expect(Number(n)).toBe(1000);
    const history = await accessHistory(db, patients[0]!, { limit: 500 });
    expect(history).toHaveLength(200);
    await writer.close();
  });

  it('stores each field as given, absent ones as NULL, the object ids as they were when pushed', async () => {
    const writer = openAuditWriter(db, { intervalMs: 10_000 });
    const patient = newId('pat');
    const entries = fieldEntries(patient);
    writer.push(entries.full);
    writer.push(entries.bare);
    // The caller's array changing later changes nothing already pushed.
    (entries.full.objectIds as string[]).push(newId('pat'));
    await writer.close();
    await expectFieldEntriesStored(db, patient, entries);
  });

  it('indexes each object once per batch, and finds each entry under its own objects only', async () => {
    const writer = openAuditWriter(db, { intervalMs: 10_000 });
    const [p1, p2] = [newId('pat'), newId('pat')];
    const a = auditEntry(p1);
    const b = auditEntry(p2);
    const c = { ...auditEntry(p1), operationId: 'listPatients', objectIds: [p1, p2, p1] };
    for (const e of [a, b, c]) writer.push(e);
    await writer.flush();
    const requests = async (id: string) =>
      (await accessHistory(db, id)).map((row) => row.requestId);
    expect(await requests(p1)).toEqual([c.requestId, a.requestId]);
    expect(await requests(p2)).toEqual([c.requestId, b.requestId]);
    expect((await accessHistory(db, p2))[0]!.objectIds).toEqual([p1, p2]);
    const indexed = await db.all<{ object_id: string; n: number }>(
      `SELECT object_id, COUNT(*) AS n FROM audit_batch_objects
        WHERE object_id IN ($1, $2) GROUP BY object_id ORDER BY object_id`,
      [p1, p2],
    );
    expect(indexed).toEqual([p1, p2].sort().map((object_id) => ({ object_id, n: 1 })));
    expect(await db.get('SELECT COUNT(*) AS n FROM audit_objects')).toEqual({ n: 0 });
    await writer.close();
  });

  it('keeps the main connection writable while it commits', async () => {
    const writer = openAuditWriter(db, { intervalMs: 1 });
    await db.run('CREATE TABLE probe (n INTEGER)');
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      writer.push(auditEntry(newId('pat')));
      writes.push(db.transaction((tx) => tx.run('INSERT INTO probe (n) VALUES ($1)', [i])));
    }
    await Promise.all(writes);
    await writer.flush();
    expect(await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM probe')).toEqual({ n: 200 });
    expect(await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM audit_log')).toEqual({ n: 200 });
    await writer.close();
  });

  it('commits waited-for entries back to back, and the main connection still gets the lock', async () => {
    // An interval no test waits out: only group commit can settle the record() calls.
    const writer = openAuditWriter(db, { intervalMs: 60_000 });
    await db.run('CREATE TABLE probe_waited (n INTEGER)');
    const reads: Promise<void>[] = [];
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      const read = writer.record(auditEntry(newId('pat')));
      if (read === undefined) throw new Error('refused');
      reads.push(read);
      writes.push(db.transaction((tx) => tx.run('INSERT INTO probe_waited (n) VALUES ($1)', [i])));
      // Reads keep coming while batches commit, as under load.
      if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all([...reads, ...writes]);
    expect(await db.get('SELECT COUNT(*) AS n FROM probe_waited')).toEqual({ n: 200 });
    expect(await db.get('SELECT COUNT(*) AS n FROM audit_log')).toEqual({ n: 200 });
    await writer.close();
  });

  it('refuses entries after close, and refuses PHI-looking values at push', async () => {
    const writer = openAuditWriter(db);
    expect(() => writer.push({ ...auditEntry(newId('pat')), objectIds: ['Anna Smith'] })).toThrow();
    await writer.close();
    expect(writer.push(auditEntry(newId('pat')))).toBe(false);
  });
});
