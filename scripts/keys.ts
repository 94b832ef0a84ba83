/** `npm run keys -- create|list|revoke`: manage API keys in the database of `DATABASE_URL`. */
import { openDb } from '../server/db/open.js';
import { keysCli } from '../server/keys/cli.js';

const db = await openDb();
try {
  process.exitCode = await keysCli(db, process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
} finally {
  await db.close();
}
