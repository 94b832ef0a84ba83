/**
 * `audit --patient pat_… | --actor ID [--limit N] [--json]`: a patient's access history, an
 * actor's, or both together (a patient's history by one actor).
 * `audit versions [--since DAYS] [--json]`: requests per key and API version.
 */
import { AuditOptionsError, auditCli, parseAuditTarget, versionsCli } from '../audit/cli.js';
import { openDb } from '../db/open.js';
import { sunsetDates } from '../http/deprecation.js';
import { versions } from '../versioning/index.js';
import { integerOption, UsageError } from './command.js';
import { type OperatorCommand, processLines } from './operator.js';

const options = {
  patient: {
    type: 'string',
    value: 'pat_…',
    description: 'The patient (this or --actor is required without versions).',
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
    value: 'DAYS',
    description: 'versions: only requests of the last DAYS days (default: the whole log).',
  },
  json: { type: 'boolean', default: false, description: 'One JSON object per line.' },
} as const;

export const auditCommand: OperatorCommand<typeof options> = {
  spec: {
    name: 'patient-care audit',
    prefix: 'audit',
    summary:
      "Prints a patient's (or an actor's) access history from the audit trail (database of DATABASE_URL), newest first; with `versions`, the requests per key and API version (who still uses a version before it is retired).",
    options,
    positionals: '[versions]',
  },
  async main({ values, positionals }) {
    const [command, ...extra] = positionals;
    if (extra.length > 0 || (command !== undefined && command !== 'versions'))
      throw new UsageError(`unknown command ${positionals.join(' ')}; the only one is versions`);
    if (command === 'versions') {
      if (values.patient !== undefined || values.actor !== undefined)
        throw new UsageError('versions takes no --patient or --actor');
      const sinceDays =
        values.since === undefined
          ? undefined
          : integerOption('since', values.since, { min: 1, max: 36_500 });
      const db = await openDb();
      try {
        return await versionsCli(
          db,
          {
            json: values.json,
            now: Date.now(),
            sunsets: sunsetDates(versions),
            ...(sinceDays ? { sinceDays } : {}),
          },
          processLines,
        );
      } finally {
        await db.close();
      }
    }
    if (values.since !== undefined) throw new UsageError('--since goes with versions');
    let target: ReturnType<typeof parseAuditTarget>;
    try {
      target = parseAuditTarget(values);
    } catch (err) {
      if (err instanceof AuditOptionsError) throw new UsageError(err.message);
      throw err;
    }
    const limit = integerOption('limit', values.limit, { min: 1, max: 100_000 });
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await auditCli(db, { ...target, limit, json: values.json }, processLines);
    } finally {
      await db.close();
    }
  },
};
