/** Audit entries for the audit suites: a successful read of one patient, fields overridable. */
import { expect } from 'vitest';
import type { AuditEntry } from '../../server/audit/entry.js';
import type { Db } from '../../server/db/types.js';
import { newId } from '../../server/ids.js';

/** A well-formed entry: a new key and request id, `retrievePatient` of `patientId`. */
export function auditEntry(patientId: string, overrides: Partial<AuditEntry> = {}): AuditEntry {
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

/**
 * Two entries of one patient for a field-by-field check: `full` gives every field (a fixed
 * time, an IPv6 address, a version, an actor, `not_found`, the patient twice), `bare` no
 * key, request, IP, version or actor.
 */
export function fieldEntries(patientId: string): { full: AuditEntry; bare: AuditEntry } {
  return {
    full: auditEntry(patientId, {
      at: 1_700_000_000_123,
      clientIp: '2001:db8::1',
      apiVersion: '2024-06-01',
      actor: 'clinician:4711',
      outcome: 'not_found',
      objectIds: [patientId, patientId],
    }),
    bare: auditEntry(patientId, { keyId: null, requestId: null, clientIp: null }),
  };
}

/** Asserts that `db` holds the two `fieldEntries` of `patientId` as given, in one batch. */
export async function expectFieldEntriesStored(
  db: Db,
  patientId: string,
  { full }: { full: AuditEntry },
): Promise<void> {
  const rows = await db.all<Record<string, unknown>>(
    `SELECT at, key_id, operation_id, request_id, client_ip, outcome, object_ids, api_version,
       actor, batch_id FROM audit_log WHERE object_ids = $1 ORDER BY id`,
    [JSON.stringify([patientId])],
  );
  expect(rows).toHaveLength(2);
  const [first, second] = rows as [Record<string, unknown>, Record<string, unknown>];
  expect({ ...first, at: Number(first.at) }).toEqual({
    at: 1_700_000_000_123,
    key_id: full.keyId,
    operation_id: full.operationId,
    request_id: full.requestId,
    client_ip: '2001:db8::1',
    outcome: 'not_found',
    object_ids: JSON.stringify([patientId]),
    api_version: '2024-06-01',
    actor: 'clinician:4711',
    batch_id: second.batch_id,
  });
  expect(second).toMatchObject({
    key_id: null,
    request_id: null,
    client_ip: null,
    api_version: null,
    actor: null,
  });
}
