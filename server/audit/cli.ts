import type { Db } from '../db/types.js';
import { accessHistory } from './history.js';
import { versionUsage } from './versions.js';

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

/** The parsed `audit versions` command line. */
export interface VersionsArgs {
  /** Only requests of the last this many days; undefined: the whole log. */
  readonly sinceDays?: number;
  readonly json: boolean;
  /** Milliseconds since the epoch; the window ends here. */
  readonly now: number;
  /** Sunset date of each deprecated version, shown next to it. */
  readonly sunsets?: Readonly<Record<string, string>>;
}

const DAY_MS = 86_400_000;

/**
 * Prints, per key, the requests served in each API version and the last one's time: who must
 * move before a version's sunset. Exit code 0.
 */
export async function versionsCli(db: Db, values: VersionsArgs, io: CliIo): Promise<number> {
  const sinceMs =
    values.sinceDays === undefined ? undefined : values.now - values.sinceDays * DAY_MS;
  const uses = await versionUsage(db, sinceMs === undefined ? {} : { sinceMs });
  if (values.json) {
    for (const use of uses) io.out(JSON.stringify(use));
    return 0;
  }
  const window =
    values.sinceDays === undefined
      ? 'in the whole audit log'
      : `in the last ${values.sinceDays} day(s)`;
  if (uses.length === 0) {
    io.out(`no audited requests ${window}`);
    return 0;
  }
  io.out(`requests per key and API version ${window}:`);
  io.out(
    ['key'.padEnd(30), 'version'.padEnd(12), 'requests'.padStart(9), '  last request'].join(' '),
  );
  for (const use of uses) {
    const sunset = use.apiVersion === null ? undefined : values.sunsets?.[use.apiVersion];
    io.out(
      [
        (use.keyId ?? '(no key)').padEnd(30),
        (use.apiVersion ?? 'unrecorded').padEnd(12),
        String(use.requests).padStart(9),
        ` ${new Date(use.lastAt).toISOString()}`,
        ...(sunset === undefined ? [] : [` deprecated, sunset ${sunset}`]),
      ].join(' '),
    );
  }
  return 0;
}
