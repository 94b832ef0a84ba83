/** `npm run audit -- --patient pat_… [--limit N] [--json]`: a patient's access history. */
import { auditCli } from '../server/audit/cli.js';
import { openDb } from '../server/db/open.js';
import { integerOption, runCommand, UsageError } from '../tooling/cli/command.js';

const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };

await runCommand(
  {
    name: 'npm run audit --',
    prefix: 'audit',
    summary:
      "Prints a patient's access history from the audit trail (database of DATABASE_URL), newest first.",
    options: {
      patient: { type: 'string', value: 'pat_…', description: 'The patient (required).' },
      limit: { type: 'string', value: 'N', default: '100', description: 'Most rows to print.' },
      json: { type: 'boolean', default: false, description: 'One JSON object per line.' },
    },
  },
  async ({ values }) => {
    if (!values.patient?.startsWith('pat_')) throw new UsageError('--patient pat_… is required');
    const limit = integerOption('limit', values.limit, { min: 1, max: 100_000 });
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await auditCli(db, { patient: values.patient, limit, json: values.json }, io);
    } finally {
      await db.close();
    }
  },
);
