/**
 * `audit --patient pat_… [--limit N] [--json]`: a patient's access history.
 * `audit versions [--since DAYS] [--json]`: requests per key and API version.
 */
import { auditCli, versionsCli } from '../audit/cli.js';
import { openDb } from '../db/open.js';
import { sunsetDates } from '../http/deprecation.js';
import { versions } from '../versioning/index.js';
import { integerOption, UsageError } from './command.js';
import { type OperatorCommand, processLines } from './operator.js';

const options = {
  patient: {
    type: 'string',
    value: 'pat_…',
    description: 'The patient (required without versions).',
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
      "Prints a patient's access history from the audit trail (database of DATABASE_URL), newest first; with `versions`, the requests per key and API version (who still uses a version before it is retired).",
    options,
    positionals: '[versions]',
  },
  async main({ values, positionals }) {
    const [command, ...extra] = positionals;
    if (extra.length > 0 || (command !== undefined && command !== 'versions'))
      throw new UsageError(`unknown command ${positionals.join(' ')}; the only one is versions`);
    if (command === 'versions') {
      if (values.patient !== undefined) throw new UsageError('versions takes no --patient');
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
    if (!values.patient?.startsWith('pat_')) throw new UsageError('--patient pat_… is required');
    const limit = integerOption('limit', values.limit, { min: 1, max: 100_000 });
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await auditCli(
        db,
        { patient: values.patient, limit, json: values.json },
        processLines,
      );
    } finally {
      await db.close();
    }
  },
};
