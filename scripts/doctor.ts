/** `npm run doctor [-- --limit N --json]`: stored rows today's release reads only by a fallback. */
import { openDb } from '../server/db/open.js';
import { doctorCli } from '../server/doctor/cli.js';
import { integerOption, runCommand } from '../tooling/cli/command.js';

const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };

await runCommand(
  {
    name: 'npm run doctor --',
    prefix: 'doctor',
    summary:
      'Checks the stored data (database of DATABASE_URL) for rows an earlier release accepted that today need repair; prints counts and ids only. Exit 1 when any need repair.',
    options: {
      limit: { type: 'string', value: 'N', default: '100', description: 'Most ids per check.' },
      json: { type: 'boolean', default: false, description: 'One JSON object per check.' },
    },
  },
  async ({ values }) => {
    const limit = integerOption('limit', values.limit, { min: 0, max: 1_000_000 });
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await doctorCli(db, { limit, json: values.json }, io);
    } finally {
      await db.close();
    }
  },
);
