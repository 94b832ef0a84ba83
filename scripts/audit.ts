/** `npm run audit -- --patient pat_… [--limit N]`: a patient's access history. */
import { auditCli } from '../server/audit/cli.js';
import { openDb } from '../server/db/open.js';

const db = await openDb();
try {
  process.exitCode = await auditCli(db, process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
} finally {
  await db.close();
}
