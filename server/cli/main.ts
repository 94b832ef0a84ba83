/**
 * `patient-care <command> …` (`node build/cli.js`): every operator command of a production
 * install in one program, dispatched to the command modules the repository's npm scripts run
 * (`npm run keys` is `patient-care keys`). A command's module is loaded only when it is named.
 */
import { UsageError } from './command.js';
import { type OperatorCommand, processLines, runOperatorCommand } from './operator.js';

interface Entry {
  readonly summary: string;
  load(): Promise<OperatorCommand>;
}

const COMMANDS: Readonly<Record<string, Entry>> = {
  keys: {
    summary: 'create, list and revoke API keys; show or pin the account API version',
    load: async () => (await import('./keys.js')).keysCommand,
  },
  audit: {
    summary: "a patient's access history; requests per key and API version",
    load: async () => (await import('./audit.js')).auditCommand as OperatorCommand,
  },
  doctor: {
    summary: 'stored rows that need repair after an upgrade (exit 1 when any)',
    load: async () => (await import('./doctor.js')).doctorCommand as OperatorCommand,
  },
  migrate: {
    summary: 'apply pending schema migrations (--check: only list them)',
    load: async () => (await import('./migrate.js')).migrateCommand as OperatorCommand,
  },
  worker: {
    summary: 'webhook delivery, the test clearinghouse and retention without the HTTP server',
    load: async () => (await import('./worker.js')).workerCommand,
  },
  backup: {
    summary: 'back up the database into one file while the service runs (--to FILE)',
    load: async () => (await import('./backup.js')).backupCommand as OperatorCommand,
  },
  restore: {
    summary: 'restore a backup into a database and check it (--from FILE --to DATABASE_URL)',
    load: async () => (await import('./backup.js')).restoreCommand as OperatorCommand,
  },
};

/** The program's name in usage and errors. */
const PROGRAM = 'patient-care';

/** The text of `patient-care --help`. */
export function operatorHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Operator commands of the Patient-Care API, on the database of DATABASE_URL (default sqlite:./data/patient-care.db).',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`),
    '',
    `\`${PROGRAM} <command> --help\` shows a command's options. The service itself: node build/server/main.js.`,
  ].join('\n');
}

/** Runs `argv` (`<command> …`); returns the exit code (also set as `process.exitCode`). */
export async function runOperatorCli(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    processLines.out(operatorHelp());
    return 0;
  }
  const entry =
    name === undefined ? undefined : Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    const problem = new UsageError(
      name === undefined
        ? `name a command: ${Object.keys(COMMANDS).join(', ')}`
        : `unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(', ')}`,
    );
    processLines.err(`${PROGRAM}: ${problem.message} (see --help)`);
    process.exitCode = 2;
    return 2;
  }
  return runOperatorCommand(await entry.load(), `${PROGRAM} ${name}`, rest);
}
