/**
 * The one argument-parsing helper every command-line entry point uses (`scripts/*.ts`,
 * `bench/*.ts`): `--help`/`-h` prints usage and exits 0; arguments are parsed before the
 * command does anything; a bad argument is one line on stderr and exit 2; a failure is one line
 * and exit 1; never a stack trace for a user's mistake.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** One option: node:util's `parseArgs` settings plus what `--help` says about it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  readonly default?: string | boolean;
  /** Shown after the flag in `--help`, e.g. `N` in `--runs N`. */
  readonly value?: string;
  readonly description: string;
}

/** What a command is called, what it does and which arguments it takes. */
export interface CommandSpec<O extends Record<string, OptionSpec>> {
  /** As the user types it, e.g. `npm run generate --`; the first word names errors. */
  readonly name: string;
  /** Short name used as the prefix of one-line errors, e.g. `generate`. */
  readonly prefix: string;
  readonly summary: string;
  readonly options: O;
  /** `[key_id]`-style synopsis of positionals; without it positionals are refused. */
  readonly positionals?: string;
  /** Extra lines after the options (environment variables, examples). */
  readonly notes?: readonly string[];
  /**
   * Subcommands parse their own flags: only `--help`/`-h` is handled here and every argument
   * is handed over as a positional, for the command to parse before any side effect.
   */
  readonly passThrough?: boolean;
}

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? S['multiple'] extends true
    ? boolean[]
    : boolean
  : S['multiple'] extends true
    ? string[]
    : string;

/** Parsed values: options with a `default` are always set, others may be undefined. */
export type Values<O extends Record<string, OptionSpec>> = {
  [K in keyof O]: O[K]['default'] extends string | boolean
    ? ValueOf<O[K]>
    : ValueOf<O[K]> | undefined;
};

export interface Parsed<O extends Record<string, OptionSpec>> {
  readonly values: Values<O>;
  readonly positionals: readonly string[];
}

/** A mistake in the command line: printed in one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure the command explains itself (no stack): printed in one line, exit code 1. */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
}

/** The `--help` text of `spec`. */
export function helpText(spec: CommandSpec<Record<string, OptionSpec>>): string {
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : ''}--${name}${option.value ? ` ${option.value}` : ''}`;
    const fallback =
      option.default !== undefined && option.default !== false
        ? ` (default ${option.default})`
        : '';
    return [flag, `${option.description}${fallback}`] as const;
  });
  rows.push(['-h, --help', 'Show this help and exit.']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const synopsis = `${spec.name}${Object.keys(spec.options).length > 0 ? ' [options]' : ''}${spec.positionals ? ` ${spec.positionals}` : ''}`;
  return [
    `Usage: ${synopsis}`,
    '',
    spec.summary,
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    ...(spec.notes && spec.notes.length > 0 ? ['', ...spec.notes] : []),
  ].join('\n');
}

/**
 * Parses `argv` against `spec`. Returns `'help'` for `--help`/`-h`; throws `UsageError` for
 * anything else it cannot accept.
 */
export function parseCommandLine<O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  argv: readonly string[],
): Parsed<O> | 'help' {
  if (spec.passThrough === true) {
    if (argv.includes('--help') || argv.includes('-h')) return 'help';
    return { values: {} as Values<O>, positionals: [...argv] };
  }
  const options: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' } };
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = {
      type: option.type,
      ...(option.short ? { short: option.short } : {}),
      ...(option.multiple ? { multiple: true } : {}),
      ...(option.default !== undefined ? { default: option.default } : {}),
    } as ParseArgsOptionsConfig[string];
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: spec.positionals !== undefined,
    });
  } catch (error) {
    // Before --help wins over everything else, a bad flag next to it still asks for help.
    if (argv.includes('--help') || argv.includes('-h')) return 'help';
    throw new UsageError(firstLine(error));
  }
  if (parsed.values.help === true) return 'help';
  const { help: _help, ...values } = parsed.values;
  return { values: values as Values<O>, positionals: parsed.positionals };
}

/** An option's value as an integer within `[min, max]`, else a `UsageError` naming it. */
export function integerOption(
  name: string,
  raw: string | undefined,
  { min = 0, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
): number {
  const value = raw === undefined || !/^-?\d+$/.test(raw.trim()) ? Number.NaN : Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** An option's value from a fixed list, else a `UsageError` listing the accepted ones. */
export function choiceOption<T extends string>(
  name: string,
  raw: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got "${raw}"`);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').trim();
}

/** Where a command writes and how it ends; tests pass their own. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processIo: CommandIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/**
 * Runs an entry point: parses `argv` (default the process's), answers `--help`, calls `main`
 * with the parsed arguments, and turns its outcome into an exit code (returned, and set as
 * `process.exitCode`): `main`'s own number, 0 when it returns nothing, 2 for a `UsageError`,
 * 1 for any other error, printed as one line `prefix: message`.
 *
 * @example
 * await runCommand(SPEC, async ({ values }) => { ... return 0; });
 */
export async function runCommand<O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  main: (args: Parsed<O>) => Promise<number | undefined> | number | undefined,
  {
    argv = process.argv.slice(2),
    io = processIo,
  }: { argv?: readonly string[]; io?: CommandIo } = {},
): Promise<number> {
  const code = await outcome(spec, main, argv, io);
  process.exitCode = code;
  return code;
}

async function outcome<O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  main: (args: Parsed<O>) => Promise<number | undefined> | number | undefined,
  argv: readonly string[],
  io: CommandIo,
): Promise<number> {
  try {
    const parsed = parseCommandLine(spec, argv);
    if (parsed === 'help') {
      io.out(helpText(spec));
      return 0;
    }
    return (await main(parsed)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${spec.prefix}: ${error.message} (see --help)`);
      return 2;
    }
    // Messages only: a stack helps nobody running a command, and a driver's error could carry
    // more than it should. Set DEBUG_STACK=1 to see one while developing.
    io.err(`${spec.prefix}: ${firstLine(error)}`);
    if (process.env.DEBUG_STACK === '1' && error instanceof Error) io.err(String(error.stack));
    return 1;
  }
}

/**
 * For entry points whose body runs at the top level (benches with child roles): parses the
 * process's arguments, or answers `--help` (exit 0) or a bad argument (one line, exit 2) and
 * ends the process before anything else runs.
 */
export function parseOrExit<O extends Record<string, OptionSpec>>(
  spec: CommandSpec<O>,
  argv: readonly string[] = process.argv.slice(2),
): Parsed<O> {
  try {
    const parsed = parseCommandLine(spec, argv);
    if (parsed !== 'help') return parsed;
    processIo.out(helpText(spec));
    process.exit(0);
  } catch (error) {
    processIo.err(`${spec.prefix}: ${firstLine(error)} (see --help)`);
    process.exit(2);
  }
}

/** Ends the process with one line for an error of `main`, exit 1 (2 for a `UsageError`). */
export function exitOnFailure(prefix: string): (error: unknown) => never {
  return (error) => {
    processIo.err(`${prefix}: ${firstLine(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  };
}
