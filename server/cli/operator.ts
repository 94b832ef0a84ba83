/**
 * An operator command (`keys`, `audit`, `doctor`, ...): its arguments and what it does, defined
 * once and run two ways with the same code: `npm run keys -- …` in the repository
 * (scripts/keys.ts) and `patient-care keys …` (`node build/cli.js keys …`) in a production
 * install, where neither tsx nor the sources exist.
 */
import {
  type CommandIo,
  type CommandSpec,
  type OptionSpec,
  type Parsed,
  runCommand,
} from './command.js';

export interface OperatorCommand<
  O extends Record<string, OptionSpec> = Record<string, OptionSpec>,
> {
  /** Its usage; `name` is the shipped one (`patient-care keys`), replaced by npm scripts. */
  readonly spec: CommandSpec<O>;
  /** Parses what the spec left to it, then acts; the exit code (undefined: 0). */
  main(args: Parsed<O>): Promise<number | undefined>;
}

/** Writes lines to the process's stdout and stderr. */
export const processLines: CommandIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs `command` as the entry point the user typed (`npm run keys --`, `patient-care keys`). */
export function runOperatorCommand<O extends Record<string, OptionSpec>>(
  command: OperatorCommand<O>,
  name: string,
  argv: readonly string[] = process.argv.slice(2),
): Promise<number> {
  return runCommand({ ...command.spec, name }, (args) => command.main(args), { argv });
}
