import { parseArgs } from 'node:util';
import type { Db } from '../db/types.js';
import { accessHistory } from './history.js';

/** Where the command writes; injected so tests can read it. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

export const AUDIT_USAGE = 'usage: npm run audit -- --patient pat_… [--limit N] [--json]';

/**
 * Prints a patient's access history, newest first: time, operation, outcome, key, request,
 * client IP and the objects touched. Exit code 0, or 2 on bad usage.
 */
export async function auditCli(db: Db, argv: readonly string[], io: CliIo): Promise<number> {
  let values: { patient?: string; limit?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        patient: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean' },
      },
    }));
  } catch (err) {
    io.err(`audit: ${(err as Error).message}`);
    io.err(AUDIT_USAGE);
    return 2;
  }
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!values.patient?.startsWith('pat_') || !Number.isInteger(limit) || limit < 1) {
    io.err(AUDIT_USAGE);
    return 2;
  }
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
