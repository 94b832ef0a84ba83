/**
 * `audit`: a patient's or an actor's access history, `versions`, `verify` (the hash chain) and
 * `export` (JSON lines or FHIR AuditEvents). The command line and what each subcommand does
 * live in server/audit/cli.ts; this only opens the database and wires the process's output.
 */
import { once } from 'node:events';
import {
  AUDIT_COMMAND,
  AuditUsageError,
  parseAuditCommand,
  runAuditCommand,
} from '../audit/cli.js';
import { openDb } from '../db/open.js';
import { sunsetDates } from '../http/deprecation.js';
import { versions } from '../versioning/index.js';
import { UsageError } from './command.js';
import { type OperatorCommand, processLines } from './operator.js';

/** A line to stdout; when the pipe is full, waits for it to drain (export stays constant-memory). */
function write(line: string): Promise<unknown> | undefined {
  return process.stdout.write(`${line}\n`) ? undefined : once(process.stdout, 'drain');
}

export const auditCommand: OperatorCommand<typeof AUDIT_COMMAND.options> = {
  spec: { ...AUDIT_COMMAND, name: 'patient-care audit' },
  async main({ values, positionals }) {
    let command: ReturnType<typeof parseAuditCommand>;
    try {
      command = parseAuditCommand(values, positionals);
    } catch (err) {
      if (err instanceof AuditUsageError) throw new UsageError(err.message);
      throw err;
    }
    // Parsed first: a mistyped command opens (and creates) no database.
    const db = await openDb();
    try {
      return await runAuditCommand(db, command, processLines, {
        now: Date.now(),
        sunsets: sunsetDates(versions),
        write,
      });
    } finally {
      await db.close();
    }
  },
};
