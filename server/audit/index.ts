/** The audit trail: entries, same-transaction writes, group-committed reads, history. */
export { type AuditEntry, type AuditOutcome, checkAuditEntry } from './entry.js';
export { type AuditRow, accessHistory, actorHistory } from './history.js';
export { openAuditWriter, type ReadAuditWriter } from './open-writer.js';
export { recordAudit } from './record.js';
export { ThreadAuditWriter } from './thread-writer.js';
export { AuditWriter, type AuditWriterOptions } from './writer.js';
