/** Audit entries for the audit suites: a successful read of one patient, fields overridable. */
import type { AuditEntry } from '../../server/audit/entry.js';
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
