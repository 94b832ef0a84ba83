/** `doctor [--limit N --json]`: stored rows today's release reads only by a fallback. */
import { openDb } from '../db/open.js';
import { doctorCli } from '../doctor/cli.js';
import { integerOption } from './command.js';
import type { OperatorCommand } from './operator.js';
import { processLines } from './operator.js';

const options = {
  limit: { type: 'string', value: 'N', default: '100', description: 'Most ids per check.' },
  json: { type: 'boolean', default: false, description: 'One JSON object per check.' },
} as const;

export const doctorCommand: OperatorCommand<typeof options> = {
  spec: {
    name: 'patient-care doctor',
    prefix: 'doctor',
    summary:
      'Checks the stored data (database of DATABASE_URL) for rows an earlier release accepted that today need repair; prints counts and ids only. Exit 1 when any need repair.',
    options,
  },
  async main({ values }) {
    const limit = integerOption('limit', values.limit, { min: 0, max: 1_000_000 });
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await doctorCli(db, { limit, json: values.json }, processLines);
    } finally {
      await db.close();
    }
  },
};
