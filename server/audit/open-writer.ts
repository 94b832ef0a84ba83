import { SqliteDb } from '../db/sqlite.js';
import type { Db } from '../db/types.js';
import type { AuditEntry } from './entry.js';
import { ThreadAuditWriter } from './thread-writer.js';
import { AuditWriter, type AuditWriterOptions } from './writer.js';

/** What the service needs from a read-audit writer. */
export interface ReadAuditWriter {
  push(entry: AuditEntry): boolean;
  record(entry: AuditEntry): Promise<void> | undefined;
  flush(): Promise<void>;
  close(): Promise<void>;
  readonly pending: number;
}

/**
 * The read-audit writer for `db`: on a SQLite file, a worker thread with its own connection
 * (`ThreadAuditWriter`: the batch's inserts and fsync run beside the event loop, which
 * better-sqlite3 would otherwise stop for them); elsewhere (PostgreSQL, whose commits do not
 * block the loop; in-memory SQLite, which another connection cannot reach) the
 * `AuditWriter` on `db` itself.
 */
export function openAuditWriter(db: Db, options: AuditWriterOptions = {}): ReadAuditWriter {
  const file = db instanceof SqliteDb ? db.filePath : undefined;
  return file === undefined ? new AuditWriter(db, options) : new ThreadAuditWriter(file, options);
}
