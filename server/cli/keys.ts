/** `keys create|list|revoke|version`: API keys and the account's pinned API version. */
import { openDb } from '../db/open.js';
import { KEYS_USAGE, parseKeysCommand, runKeysCommand } from '../keys/cli.js';
import { KeyOptionsError } from '../keys/store.js';
import { UsageError } from './command.js';
import { type OperatorCommand, processLines } from './operator.js';

export const keysCommand: OperatorCommand = {
  spec: {
    name: 'patient-care keys',
    prefix: 'keys',
    summary:
      "Creates, lists and revokes API keys, and shows or changes the account's pinned API version, in the database of DATABASE_URL.",
    options: {},
    positionals: '<create|list|revoke|version> …',
    passThrough: true,
    notes: ['Commands:', ...KEYS_USAGE.split('\n').slice(1)],
  },
  async main({ positionals }) {
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
      return await runKeysCommand(db, command, processLines);
    } finally {
      await db.close();
    }
  },
};
