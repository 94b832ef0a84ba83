/**
 * `npm run audit -- export`: every row once, in chain order, as JSON lines or as FHIR R4
 * AuditEvents valid by both validators; the printed cursor picks up exactly the rows written
 * since; `--since` bounds by time; the command line is parsed before anything runs.
 */
import { expect, it } from 'vitest';
import {
  AUDIT_COMMAND,
  AuditUsageError,
  parseAuditCommand,
  runAuditCommand,
} from '../../server/audit/cli.js';
import { auditEvent, type ExportedRow, exportAudit } from '../../server/audit/export.js';
import { AuditWriter, recordAudit } from '../../server/audit/index.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';
import { parseCommandLine } from '../../tooling/cli/command.js';
import { problems } from '../fhir/support/both-validators.js';
import { auditEntry } from '../support/audit-entries.js';
import { describeEachDatabase, useTestDb } from '../support/databases.js';

/** Entries of every shape the service writes: reads, searches, creates, updates, refusals. */
function variedEntries(at: number) {
  const patient = newId('pat');
  return [
    auditEntry(patient, { at }),
    auditEntry(patient, {
      at: at + 1,
      operationId: 'listPatients',
      objectIds: [patient, newId('pat')],
    }),
    auditEntry(patient, {
      at: at + 2,
      operationId: 'createAppointment',
      objectIds: [newId('appt'), patient],
    }),
    auditEntry(patient, { at: at + 3, operationId: 'updatePatient', clientIp: '2001:db8::7' }),
    auditEntry(patient, { at: at + 4, outcome: 'denied', keyId: null, requestId: null }),
    auditEntry(patient, {
      at: at + 5,
      operationId: 'retrieveEvent',
      objectIds: [newId('evt')],
      outcome: 'not_found',
    }),
    auditEntry(patient, {
      at: at + 6,
      operationId: 'searchFhirClaims',
      objectIds: [newId('clm'), patient],
      outcome: 'error',
      apiVersion: '2026-12-01',
    }),
    auditEntry(patient, { at: at + 7, operationId: 'deleteWebhook', objectIds: [newId('wh')] }),
  ];
}

async function write(db: Db, at: number): Promise<number> {
  const entries = variedEntries(at);
  const [first, ...rest] = entries;
  await db.transaction((tx) => recordAudit(tx, first!));
  // Two batches in flight on PostgreSQL: the chain must still hold them in queue order.
  const writer = new AuditWriter(db, { intervalMs: 1, maxBatch: 3, batchesInFlight: 2 });
  await Promise.all(rest.map((e) => writer.record(e)));
  await writer.close();
  return entries.length;
}

async function lines(db: Db, options: Parameters<typeof exportAudit>[1]) {
  const out: string[] = [];
  const result = await exportAudit(db, { pageSize: 3, ...options }, (line) => out.push(line));
  return { ...result, out };
}

await describeEachDatabase('audit export', (dialect) => {
  const ctx = useTestDb(dialect, { fresh: 'each' });

  it('exports every row once as a JSON line, oldest first, and resumes from the cursor', async () => {
    const n = await write(ctx.db, 1_800_000_000_000);
    const first = await lines(ctx.db, { format: 'jsonl' });
    expect(first.rows).toBe(n);
    const rows = first.out.map((l) => JSON.parse(l) as ExportedRow);
    expect(rows.map((r) => r.chain_seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(new Set(rows.map((r) => r.id)).size).toBe(n);
    expect(rows[0]).toMatchObject({ at: '2027-01-15T08:00:00.000Z', outcome: 'success' });
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.cursor).toBe(n);

    // Nothing new: nothing exported, the cursor stays.
    expect(await lines(ctx.db, { format: 'jsonl', after: first.cursor })).toMatchObject({
      rows: 0,
      cursor: n,
    });
    const m = await write(ctx.db, 1_800_000_100_000);
    const next = await lines(ctx.db, { format: 'jsonl', after: first.cursor });
    expect(next.rows).toBe(m);
    expect(next.out.map((l) => (JSON.parse(l) as ExportedRow).chain_seq)).toEqual(
      Array.from({ length: m }, (_, i) => n + i + 1),
    );
    const since = await lines(ctx.db, { format: 'jsonl', sinceMs: 1_800_000_100_000 });
    expect(since.rows).toBe(m);
  });

  it('exports FHIR R4 AuditEvents that both validators accept', async () => {
    const n = await write(ctx.db, 1_800_000_000_000);
    const fhir = await lines(ctx.db, { format: 'fhir' });
    expect(fhir.rows).toBe(n);
    const events = fhir.out.map(
      (l) => JSON.parse(l) as { resourceType: string } & Record<string, unknown>,
    );
    for (const event of events) expect(problems(event)).toEqual([]);
    expect(events.map((e) => e.action)).toEqual(['R', 'E', 'C', 'U', 'R', 'R', 'E', 'D']);
    expect(events.map((e) => e.outcome)).toEqual(['0', '0', '0', '0', '4', '4', '8', '0']);
    expect(events[0]).toMatchObject({
      resourceType: 'AuditEvent',
      subtype: [{ code: 'read' }, { code: 'retrievePatient' }],
      agent: [{ requestor: true, network: { address: '127.0.0.1', type: '2' } }],
      entity: [
        { what: { reference: expect.stringMatching(/^Patient\/pat-/) }, role: { code: '1' } },
        { type: { code: 'XrequestId' } },
      ],
    });
  });
});

it('names the acting person as a second agent, the requestor, valid by both validators', () => {
  const row: ExportedRow = {
    id: newId('aud'),
    chain_seq: 1,
    at: '2027-01-15T08:00:00.000Z',
    key_id: newId('key'),
    operation_id: 'retrievePatient',
    object_ids: [newId('pat')],
    request_id: newId('req'),
    client_ip: '127.0.0.1',
    outcome: 'success',
    api_version: null,
    batch_id: newId('audb'),
    hash: 'a'.repeat(64),
    actor: 'dr.lee@clinic',
  };
  const event = auditEvent(row) as { resourceType: string; agent: unknown[] };
  expect(problems(event)).toEqual([]);
  expect(event.agent).toMatchObject([
    { requestor: false },
    { requestor: true, who: { identifier: { value: 'dr.lee@clinic' } } },
  ]);
});

it('parses the export and verify command lines before anything runs', () => {
  const parse = (...argv: string[]) => {
    const parsed = parseCommandLine(AUDIT_COMMAND, argv);
    if (parsed === 'help') throw new Error('help');
    return parseAuditCommand(parsed.values, parsed.positionals);
  };
  expect(parse('export', '--since', '2026-01-01', '--format', 'fhir', '--after', '42')).toEqual({
    kind: 'export',
    format: 'fhir',
    sinceMs: Date.parse('2026-01-01'),
    after: 42,
  });
  expect(parse('verify')).toEqual({ kind: 'verify', json: false });
  expect(() => parse('export', '--since', 'yesterday')).toThrow(AuditUsageError);
  expect(() => parse('export', '--format', 'xml')).toThrow(AuditUsageError);
  expect(() => parse('verify', '--after', '3')).toThrow(AuditUsageError);
  expect(() => parse('export', '--patient', 'pat_x')).toThrow(AuditUsageError);
  expect(() => parse('shred')).toThrow(AuditUsageError);
});

it('prints the cursor on stderr, the rows alone on stdout', async () => {
  const { openDb } = await import('../../server/db/open.js');
  const db = await openDb('sqlite::memory:');
  try {
    await write(db, 1_800_000_000_000);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAuditCommand(
      db,
      { kind: 'export', format: 'jsonl', after: 6 },
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      { now: Date.now() },
    );
    expect(code).toBe(0);
    expect(out).toHaveLength(2);
    expect(err).toEqual(['exported 2 row(s); cursor: 8']);
  } finally {
    await db.close();
  }
});
