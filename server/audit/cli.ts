import type { Db } from '../db/types.js';
import { accessHistory } from './history.js';

/** Where the command writes; injected so tests can read it. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** The parsed `audit` command line. */
export interface AuditArgs {
  readonly patient: string;
  readonly limit: number;
  readonly json: boolean;
}

/**
 * Prints a patient's access history, newest first: time, operation, outcome, key, request,
 * client IP and the objects touched. Exit code 0.
 */
export async function auditCli(db: Db, values: AuditArgs, io: CliIo): Promise<number> {
  const limit = values.limit;
  const rows = await accessHistory(db, values.patient, { limit });
  if (values.json) {
    for (const row of rows) io.out(JSON.stringify(row));
    return 0;
  }
  if (rows.length === 0) {
    io.out(`no recorded access to ${values.patient}`);
    return 0;
  }
  for (const row of rows) {
    io.out(
      [
        new Date(row.at).toISOString(),
        row.operationId.padEnd(20),
        row.outcome.padEnd(9),
        `key=${row.keyId ?? '-'}`,
        `request=${row.requestId ?? '-'}`,
        `ip=${row.clientIp ?? '-'}`,
        `objects=${row.objectIds.join(',')}`,
      ].join('  '),
    );
  }
  return 0;
}
