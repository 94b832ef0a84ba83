/** The audit trail: entries, same-transaction writes, group-committed reads, history. */
export { type AuditEntry, type AuditOutcome, checkAuditEntry } from './entry.js';
export { type AuditRow, accessHistory } from './history.js';
export { recordAudit } from './record.js';
export { AuditWriter, type AuditWriterOptions } from './writer.js';
