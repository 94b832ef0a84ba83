import { isActor } from '../../contract/actor.js';
import type { Db } from '../db/types.js';
import { exportAudit, type LineSink } from './export.js';
import { accessHistory, actorHistory } from './history.js';
import { verifyChain } from './verify.js';
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

/**
 * A mistake in the `audit` command line; the message names the option, never a value that
 * could be PHI. The entry point prints it as a usage error (exit 2).
 */
export class AuditUsageError extends Error {
  override readonly name = 'AuditUsageError';
}

/**
 * The `audit` command line, every subcommand's options: the shape `runCommand`
 * (tooling/cli/command.ts) takes for `--help` and parsing, kept here beside the parser.
 */
export const AUDIT_COMMAND = {
  name: 'npm run audit --',
  prefix: 'audit',
  summary:
    "The audit trail (database of DATABASE_URL): a patient's (or an actor's) access history, newest first; `versions`, the requests per key and API version; `verify`, the hash chain walked from its start (exit 0 intact, 1 naming the first row where it breaks); `export`, every row for a SIEM as JSON lines or FHIR R4 AuditEvents.",
  options: {
    patient: {
      type: 'string',
      value: 'pat_…',
      description: 'The patient (this or --actor is required without a command).',
    },
    actor: {
      type: 'string',
      value: 'ID',
      description:
        'Only requests made by this actor (their PatientCare-Actor header); alone, everything the actor did.',
    },
    limit: { type: 'string', value: 'N', default: '100', description: 'Most rows to print.' },
    since: {
      type: 'string',
      value: 'DAYS|DATE',
      description:
        'versions: only requests of the last DAYS days (default: the whole log). export: rows at or after DATE (YYYY-MM-DD or an ISO 8601 time).',
    },
    after: {
      type: 'string',
      value: 'N',
      description:
        'export: only rows past chain place N, the cursor the last export printed (stderr: `cursor: N`).',
    },
    format: {
      type: 'string',
      value: 'jsonl|fhir',
      default: 'jsonl',
      description: 'export: one JSON object per row, or one FHIR R4 AuditEvent per line.',
    },
    json: { type: 'boolean', default: false, description: 'One JSON object per line.' },
  },
  positionals: '[versions|verify|export]',
} as const;

/** The parsed option values (`--limit` and `--format` always have theirs). */
export interface AuditValues {
  readonly patient?: string | undefined;
  readonly actor?: string | undefined;
  readonly limit: string;
  readonly since?: string | undefined;
  readonly after?: string | undefined;
  readonly format: string;
  readonly json: boolean;
}

/** A whole number in [min, max], or a usage error naming the option. */
function integer(name: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new AuditUsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/** A parsed `audit` command line, ready to run. */
export type AuditCommand =
  | { kind: 'history'; args: AuditArgs }
  | { kind: 'versions'; sinceDays?: number; json: boolean }
  | { kind: 'verify'; json: boolean }
  | { kind: 'export'; sinceMs?: number; after?: number; format: 'jsonl' | 'fhir' };

const COMMANDS = ['versions', 'verify', 'export'] as const;

/** Parses before anything runs: a mistyped command opens (and creates) no database. */
export function parseAuditCommand(
  values: AuditValues,
  positionals: readonly string[],
): AuditCommand {
  const [command, ...extra] = positionals;
  if (
    extra.length > 0 ||
    (command !== undefined && !(COMMANDS as readonly string[]).includes(command))
  ) {
    throw new AuditUsageError(
      `unknown command ${positionals.join(' ')}; the commands are ${COMMANDS.join(', ')}`,
    );
  }
  const only = (allowed: readonly string[]) => {
    for (const name of ['patient', 'actor', 'since', 'after'] as const) {
      if (values[name] !== undefined && !allowed.includes(name)) {
        throw new AuditUsageError(`--${name} does not go with ${command ?? 'a patient history'}`);
      }
    }
    if (values.format !== 'jsonl' && command !== 'export') {
      throw new AuditUsageError('--format goes with export');
    }
  };
  if (command === 'versions') {
    only(['since']);
    const sinceDays =
      values.since === undefined ? undefined : integer('since', values.since, 1, 36_500);
    return { kind: 'versions', json: values.json, ...(sinceDays ? { sinceDays } : {}) };
  }
  if (command === 'verify') {
    only([]);
    return { kind: 'verify', json: values.json };
  }
  if (command === 'export') {
    only(['since', 'after']);
    if (values.format !== 'jsonl' && values.format !== 'fhir') {
      throw new AuditUsageError('--format is jsonl or fhir');
    }
    const after =
      values.after === undefined
        ? undefined
        : integer('after', values.after, 0, Number.MAX_SAFE_INTEGER);
    let sinceMs: number | undefined;
    if (values.since !== undefined) {
      sinceMs = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(values.since)
        ? Date.parse(values.since)
        : Number.NaN;
      if (Number.isNaN(sinceMs)) {
        throw new AuditUsageError(
          '--since takes a date (YYYY-MM-DD) or an ISO 8601 time with an offset',
        );
      }
    }
    return {
      kind: 'export',
      format: values.format,
      ...(sinceMs === undefined ? {} : { sinceMs }),
      ...(after === undefined ? {} : { after }),
    };
  }
  only(['patient', 'actor']);
  let target: ReturnType<typeof parseAuditTarget>;
  try {
    target = parseAuditTarget(values);
  } catch (err) {
    if (err instanceof AuditOptionsError) throw new AuditUsageError(err.message);
    throw err;
  }
  const limit = integer('limit', values.limit, 1, 100_000);
  return { kind: 'history', args: { ...target, limit, json: values.json } };
}

/** Extra context a command may need from the process that runs it. */
export interface AuditRunContext {
  /** Milliseconds since the epoch (versions' window). */
  now: number;
  /** Sunset date of each deprecated version (versions). */
  sunsets?: Readonly<Record<string, string>>;
  /** Where export's lines go, waiting when the reader is slow; default `io.out`. */
  write?: LineSink;
}

/** Runs a parsed command; the exit code. */
export async function runAuditCommand(
  db: Db,
  command: AuditCommand,
  io: CliIo,
  context: AuditRunContext,
): Promise<number> {
  switch (command.kind) {
    case 'history':
      return auditCli(db, command.args, io);
    case 'versions':
      return versionsCli(
        db,
        {
          json: command.json,
          now: context.now,
          ...(context.sunsets ? { sunsets: context.sunsets } : {}),
          ...(command.sinceDays ? { sinceDays: command.sinceDays } : {}),
        },
        io,
      );
    case 'verify':
      return verifyCli(db, command.json, io);
    case 'export': {
      const { rows, cursor } = await exportAudit(
        db,
        {
          format: command.format,
          ...(command.sinceMs === undefined ? {} : { sinceMs: command.sinceMs }),
          ...(command.after === undefined ? {} : { after: command.after }),
        },
        context.write ?? io.out,
      );
      // On stderr, so stdout stays pure data; the next run passes it as --after.
      io.err(`exported ${rows} row(s); cursor: ${cursor}`);
      return 0;
    }
  }
}

/**
 * Walks the chain: exit 0 and one line when intact, exit 1 and the first row where it breaks
 * otherwise. The head's hash is printed to be kept elsewhere: a trail rewritten whole, with
 * every hash recomputed, no longer ends with it.
 */
export async function verifyCli(db: Db, json: boolean, io: CliIo): Promise<number> {
  const result = await verifyChain(db);
  if (json) io.out(JSON.stringify(result));
  else if (result.broken === undefined) {
    io.out(
      `audit trail intact: ${result.rows} chained row(s), head ${result.head?.seq ?? 0} ${result.head?.hash ?? ''}; ${result.legacyRows} row(s) from before the chain (not covered)`,
    );
  } else {
    const { rowId, seq, reason } = result.broken;
    const where = rowId === null ? 'the chain head' : `row ${rowId}`;
    io.out(`audit trail broken at ${where}${seq === null ? '' : ` (place ${seq})`}: ${reason}`);
  }
  return result.broken === undefined ? 0 : 1;
}
