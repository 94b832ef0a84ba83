/**
 * `npm run audit -- --patient pat_… [--limit N] [--json]`: a patient's access history.
 * `npm run audit -- versions [--since DAYS] [--json]`: requests per key and API version.
 * `npm run audit -- verify [--json]`: the hash chain walked whole.
 * `npm run audit -- export [--since DATE] [--after N] [--format jsonl|fhir]`: rows for a SIEM.
 * Parsing and running live in server/audit/cli.ts.
 */
import { once } from 'node:events';
import {
  AUDIT_COMMAND,
  AuditUsageError,
  parseAuditCommand,
  runAuditCommand,
} from '../server/audit/cli.js';
import { openDb } from '../server/db/open.js';
import { sunsetDates } from '../server/http/deprecation.js';
import { versions } from '../server/versioning/index.js';
import { runCommand, UsageError } from '../tooling/cli/command.js';

const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };

/** A line to stdout; when the pipe is full, waits for it to drain (export stays constant-memory). */
function write(line: string): Promise<unknown> | undefined {
  return process.stdout.write(`${line}\n`) ? undefined : once(process.stdout, 'drain');
}

await runCommand(AUDIT_COMMAND, async ({ values, positionals }) => {
  let command: ReturnType<typeof parseAuditCommand>;
  try {
    command = parseAuditCommand(values, positionals);
  } catch (err) {
    if (err instanceof AuditUsageError) throw new UsageError(err.message);
    throw err;
  }
  const db = await openDb();
  try {
    return await runAuditCommand(db, command, io, {
      now: Date.now(),
      sunsets: sunsetDates(versions),
      write,
    });
  } finally {
    await db.close();
  }
});
