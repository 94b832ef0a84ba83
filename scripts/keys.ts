/** `npm run keys -- create|list|revoke|version`: API keys and the account's pinned API version in the database of `DATABASE_URL`. */
import { openDb } from '../server/db/open.js';
import { KEYS_USAGE, parseKeysCommand, runKeysCommand } from '../server/keys/cli.js';
import { KeyOptionsError } from '../server/keys/store.js';
import { runCommand, UsageError } from '../tooling/cli/command.js';

const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };

await runCommand(
  {
    name: 'npm run keys --',
    prefix: 'keys',
    summary:
      "Creates, lists and revokes API keys, and shows or changes the account's pinned API version, in the database of DATABASE_URL.",
    options: {},
    positionals: '<create|list|revoke|version> …',
    passThrough: true,
    notes: ['Commands:', ...KEYS_USAGE.split('\n').slice(1)],
  },
  async ({ positionals }) => {
    let command: ReturnType<typeof parseKeysCommand>;
    try {
      command = parseKeysCommand(positionals);
    } catch (err) {
      if (err instanceof KeyOptionsError) throw new UsageError(err.message);
      throw err;
    }
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await runKeysCommand(db, command, io);
    } finally {
      await db.close();
    }
  },
);
