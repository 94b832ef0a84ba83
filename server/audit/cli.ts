import { isActor } from '../../contract/actor.js';
import type { Db } from '../db/types.js';
import { accessHistory, actorHistory } from './history.js';
import { versionUsage } from './versions.js';

/** Where the command writes; injected so tests can read it. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Options of the `audit` command it cannot accept; the message says which (a usage error). */
export class AuditOptionsError extends Error {
  override readonly name = 'AuditOptionsError';
}

/**
 * The parsed `audit` command line: a patient's history, an actor's, or a patient's history
 * narrowed to one actor. At least one of the two is set (`parseAuditTarget`).
 */
export interface AuditArgs {
  readonly patient?: string;
  readonly actor?: string;
  readonly limit: number;
  readonly json: boolean;
}

/**
 * Checks `--patient` and `--actor` as typed: at least one, each in its form. Throws
 * `AuditOptionsError` before any database is opened.
 */
export function parseAuditTarget(values: {
  patient?: string | undefined;
  actor?: string | undefined;
}): { patient?: string; actor?: string } {
  const { patient, actor } = values;
  if (patient === undefined && actor === undefined) {
    throw new AuditOptionsError('--patient pat_… or --actor ID is required');
  }
  if (patient !== undefined && !patient.startsWith('pat_')) {
    throw new AuditOptionsError('--patient takes a patient id (pat_…)');
  }
  if (actor !== undefined && !isActor(actor)) {
    throw new AuditOptionsError('--actor takes 1-64 characters of A-Z a-z 0-9 . _ : @ -');
  }
  return {
    ...(patient === undefined ? {} : { patient }),
    ...(actor === undefined ? {} : { actor }),
  };
}

/**
 * Prints an access history, newest first: a patient's (`patient`), an actor's (`actor`), or
 * a patient's by one actor (both): time, operation, outcome, key, actor, request, client IP
 * and the objects touched. Exit code 0.
 */
export async function auditCli(db: Db, values: AuditArgs, io: CliIo): Promise<number> {
  const { limit, patient, actor } = values;
  const rows =
    patient !== undefined
      ? await accessHistory(db, patient, { limit, ...(actor === undefined ? {} : { actor }) })
      : actor !== undefined
        ? await actorHistory(db, actor, { limit })
        : [];
  if (values.json) {
    for (const row of rows) io.out(JSON.stringify(row));
    return 0;
  }
  if (rows.length === 0) {
    const by = actor === undefined ? '' : ` by actor ${actor}`;
    io.out(
      patient === undefined ? `no recorded access${by}` : `no recorded access to ${patient}${by}`,
    );
    return 0;
  }
  for (const row of rows) {
    io.out(
      [
        new Date(row.at).toISOString(),
        row.operationId.padEnd(20),
        row.outcome.padEnd(9),
        `key=${row.keyId ?? '-'}`,
        `actor=${row.actor ?? '-'}`,
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
