/**
 * The audit trail's hash chain (server/audit/chain.ts) and `audit verify`: intact after every
 * writer (a write's transaction, the batching writer, SQLite's audit thread, several processes
 * at once on PostgreSQL), and broken, naming the row, after a row is edited, deleted or
 * inserted directly in the database with the append-only triggers dropped.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { CHAINED_FIELDS, canonicalRow, chainHash, GENESIS_HASH } from '../../server/audit/chain.js';
import { verifyCli } from '../../server/audit/cli.js';
import { AuditWriter, openAuditWriter, recordAudit } from '../../server/audit/index.js';
import { verifyChain } from '../../server/audit/verify.js';
import { PostgresDb } from '../../server/db/postgres.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { auditEntry } from '../support/audit-entries.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./fixtures/chain-writer-child.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/** Drops the append-only triggers, as an administrator covering tracks would. */
async function dropTriggers(db: Db): Promise<void> {
  if (db.dialect === 'postgres') {
    await db.run('DROP TRIGGER audit_log_append_only ON audit_log');
    await db.run('DROP TRIGGER audit_chain_forward ON audit_chain');
  } else {
    for (const name of ['audit_log_no_update', 'audit_log_no_delete', 'audit_chain_forward']) {
      await db.run(`DROP TRIGGER ${name}`);
    }
  }
}

/** Rows written every way this database's service writes them: writes, batches, the thread. */
async function writeTrail(db: Db): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(await db.transaction((tx) => recordAudit(tx, auditEntry(newId('pat')))));
  }
  const batching = new AuditWriter(db, { intervalMs: 1, maxBatch: 7 });
  await Promise.all(Array.from({ length: 20 }, () => batching.record(auditEntry(newId('pat')))));
  await batching.close();
  // The service's writer: on a SQLite file the audit thread, with its own connection and its
  // own copy of the encoding, which this walk checks against chain.ts's.
  const service = openAuditWriter(db, { intervalMs: 1, maxBatch: 9 });
  await Promise.all(Array.from({ length: 20 }, () => service.record(auditEntry(newId('pat')))));
  await service.close();
  const rows = await db.all<{ id: string }>(
    'SELECT id FROM audit_log WHERE chain_seq IS NOT NULL ORDER BY chain_seq',
  );
  return rows.map((row) => row.id);
}

function cli(db: Db): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  return verifyCli(db, false, { out: (l) => lines.push(l), err: (l) => lines.push(l) }).then(
    (code) => ({ code, lines }),
  );
}

it('encodes a row as name/value pairs in CHAINED_FIELDS order, nulls left out, numbers as text', () => {
  const row = { chain_seq: 3, id: 'aud_X', at: 1700000000000n, key_id: null, outcome: 'success' };
  expect(canonicalRow(row)).toBe(
    '["chain_seq","3","id","aud_X","at","1700000000000","outcome","success"]',
  );
  expect(canonicalRow({ ...row, at: '1700000000000' })).toBe(canonicalRow(row));
  expect(CHAINED_FIELDS[0]).toBe('chain_seq');
  expect(chainHash(GENESIS_HASH, row)).toMatch(/^[0-9a-f]{64}$/);
  expect(chainHash(GENESIS_HASH, row)).not.toBe(chainHash(GENESIS_HASH, { ...row, id: 'aud_Y' }));
});

await describeEachDatabase('audit hash chain', (dialect) => {
  const ctx = useTestDb(dialect, { fresh: 'each' });

  it('verifies an intact trail written by every writer, and prints its head', async () => {
    const ids = await writeTrail(ctx.db);
    expect(ids.length).toBe(43);
    const result = await verifyChain(ctx.db, { pageSize: 5 });
    expect(result).toMatchObject({ rows: ids.length, legacyRows: 0 });
    expect(result.broken).toBeUndefined();
    const { code, lines } = await cli(ctx.db);
    expect(code).toBe(0);
    expect(lines[0]).toContain(`audit trail intact: ${ids.length} chained row(s)`);
  });

  it('chains a batch from the head its writer left, one statement on PostgreSQL', async () => {
    const errors: unknown[] = [];
    const writer = new AuditWriter(ctx.db, { intervalMs: 10_000, onError: (e) => errors.push(e) });
    const oneStatement = () => (ctx.db instanceof PostgresDb ? ctx.db.commitStats.statements : 0);
    // The first batch locks and reads the head; the writer then knows where it left it.
    await Promise.all([1, 2, 3].map(() => writer.record(auditEntry(newId('pat')))));
    const before = oneStatement();
    await Promise.all([1, 2, 3].map(() => writer.record(auditEntry(newId('pat')))));
    // Without `BEGIN`: a transaction that is one statement commits through `TurnCommits`.
    if (dialect === 'postgres') expect(oneStatement()).toBe(before + 1);
    await writer.close();
    expect(errors).toEqual([]);
    expect(await verifyChain(ctx.db)).toMatchObject({ rows: 6, head: { seq: 6 } });
  });

  it('stores a batch again, locking the head, when a write moved the head meanwhile', async () => {
    const errors: unknown[] = [];
    const writer = new AuditWriter(ctx.db, { intervalMs: 10_000, onError: (e) => errors.push(e) });
    await Promise.all([1, 2].map(() => writer.record(auditEntry(newId('pat')))));
    // A write's own audit row takes the next place behind the writer's back.
    await ctx.db.transaction((tx) => recordAudit(tx, auditEntry(newId('pat'))));
    const again = [1, 2, 3].map(() => auditEntry(newId('pat')));
    await Promise.all(again.map((entry) => writer.record(entry)));
    await writer.close();
    expect(errors).toEqual([]);
    expect(await verifyChain(ctx.db)).toMatchObject({ rows: 6, head: { seq: 6 } });
    const stored = await ctx.db.all<{ request_id: string; chain_seq: number | string }>(
      'SELECT request_id, chain_seq FROM audit_log WHERE chain_seq > 3 ORDER BY chain_seq',
    );
    // Each entry once, after the write's row, as it was given (not stored as a failed attempt).
    expect(stored.map((row) => row.request_id)).toEqual(again.map((entry) => entry.requestId));
    const outcomes = await ctx.db.all<{ outcome: string }>(
      'SELECT DISTINCT outcome FROM audit_log',
    );
    expect(outcomes).toEqual([{ outcome: 'success' }]);
  });

  it('names the row edited directly in the database', async () => {
    const ids = await writeTrail(ctx.db);
    await dropTriggers(ctx.db);
    await ctx.db.run("UPDATE audit_log SET outcome = 'denied' WHERE id = $1", [ids[10]]);
    const { code, lines } = await cli(ctx.db);
    expect(code).toBe(1);
    expect(lines[0]).toContain(`broken at row ${ids[10]} (place 11)`);
    expect(lines[0]).toContain('edited');
  });

  it('names the row after one deleted, and the last row when the newest were deleted', async () => {
    const ids = await writeTrail(ctx.db);
    await dropTriggers(ctx.db);
    await ctx.db.run('DELETE FROM audit_log WHERE id = $1', [ids[4]]);
    let { code, lines } = await cli(ctx.db);
    expect(code).toBe(1);
    expect(lines[0]).toContain(`broken at row ${ids[5]} (place 6)`);
    expect(lines[0]).toContain('deleted');

    await ctx.db.run('DELETE FROM audit_log WHERE chain_seq >= 5');
    ({ code, lines } = await cli(ctx.db));
    expect(code).toBe(1);
    expect(lines[0]).toContain(`broken at row ${ids[3]} (place 4)`);
    expect(lines[0]).toMatch(/last \d+ row\(s\) were deleted/);
  });

  it('names a row inserted without a place, and one inserted into the chain', async () => {
    const ids = await writeTrail(ctx.db);
    await dropTriggers(ctx.db);
    const stray = newId('aud');
    await ctx.db.run(
      `INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome, object_ids)
       VALUES ($1, 1, NULL, 'retrievePatient', NULL, NULL, 'success', '[]')`,
      [stray],
    );
    let { code, lines } = await cli(ctx.db);
    expect(code).toBe(1);
    expect(lines[0]).toContain(`broken at row ${stray}`);
    expect(lines[0]).toContain('inserted');

    await ctx.db.run('DELETE FROM audit_log WHERE id = $1', [stray]);
    // A forged row in the middle: the places after it moved up one, their hashes kept.
    await ctx.db.run('DROP INDEX audit_log_chain');
    await ctx.db.run('UPDATE audit_log SET chain_seq = chain_seq + 1 WHERE chain_seq > 7');
    const forged = newId('aud');
    await ctx.db.run(
      `INSERT INTO audit_log (id, at, key_id, operation_id, request_id, client_ip, outcome,
         object_ids, chain_seq, hash)
       VALUES ($1, 1, NULL, 'retrievePatient', NULL, NULL, 'success', '[]', 8, $2)`,
      [forged, 'f'.repeat(64)],
    );
    await ctx.db.run('UPDATE audit_chain SET seq = seq + 1');
    ({ code, lines } = await cli(ctx.db));
    expect(code).toBe(1);
    expect(lines[0]).toContain(`broken at row ${forged} (place 8)`);
    expect(ids).not.toContain(forged);
  });

  it('keeps the rows from before the chain out of it, counted, and starts at the genesis', async () => {
    const head = await ctx.db.get<{ seq: number; hash: string; legacy_rows: number }>(
      'SELECT seq, hash, legacy_rows FROM audit_chain WHERE id = 1',
    );
    expect({ ...head, seq: Number(head?.seq), legacy_rows: Number(head?.legacy_rows) }).toEqual({
      seq: 0,
      hash: GENESIS_HASH,
      legacy_rows: 0,
    });
    expect((await verifyChain(ctx.db)).broken).toBeUndefined();
  });

  it.skipIf(dialect !== 'postgres')(
    'stays one unbroken chain with three processes writing at once',
    { timeout: 120_000 },
    async () => {
      const children = Array.from({ length: 3 }, () => run(tsx, [child, ctx.url, '200']));
      const outputs = await Promise.all(children);
      for (const { stdout } of outputs) expect(stdout.trim()).toBe('done');
      const result = await verifyChain(ctx.db, { pageSize: 97 });
      expect(result.broken).toBeUndefined();
      expect(result.rows).toBe(600);
      expect(result.head?.seq).toBe(600);
    },
  );
});
