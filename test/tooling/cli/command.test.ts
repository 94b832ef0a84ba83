/**
 * The shared command-line parser every entry point uses (`tooling/cli/command.ts`), in
 * process. The integration tier's `test/cli/commands.test.ts` starts every real command; this
 * file keeps the rules themselves in the fast tier.
 */
import { describe, expect, it } from 'vitest';
import {
  choiceOption,
  helpText,
  integerOption,
  parseCommandLine,
  UsageError,
} from '../../../tooling/cli/command.js';

const SPEC = {
  name: 'npm run demo --',
  prefix: 'demo',
  summary: 'A command for the tests.',
  options: {
    runs: { type: 'string', value: 'N', default: '3', description: 'How many runs.' },
    verbose: { type: 'boolean', default: false, description: 'Say more.' },
  },
} as const;

describe('parseCommandLine', () => {
  it.each([[['--help']], [['-h']], [['--runs', '2', '-h']], [['--nonsense', '--help']]])(
    '%j asks for help',
    (argv) => {
      expect(parseCommandLine(SPEC, argv)).toBe('help');
    },
  );

  it('fills defaults and reads given values', () => {
    expect(parseCommandLine(SPEC, [])).toEqual({
      values: { runs: '3', verbose: false },
      positionals: [],
    });
    expect(parseCommandLine(SPEC, ['--runs', '7', '--verbose'])).toEqual({
      values: { runs: '7', verbose: true },
      positionals: [],
    });
  });

  it.each([[['--nonsense']], [['stray']], [['--verbose=yes']]])(
    '%j is a one-line UsageError',
    (argv) => {
      let thrown: unknown;
      try {
        parseCommandLine(SPEC, argv);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as Error).message).not.toContain('\n');
    },
  );

  it('hands every argument over when the command parses its own subcommands', () => {
    const spec = { ...SPEC, passThrough: true } as const;
    expect(parseCommandLine(spec, ['create', '--scopes', 'x'])).toEqual({
      values: {},
      positionals: ['create', '--scopes', 'x'],
    });
    expect(parseCommandLine(spec, ['create', '-h'])).toBe('help');
  });
});

describe('option readers', () => {
  it('integerOption takes whole numbers in range and names the option otherwise', () => {
    expect(integerOption('runs', '5', { min: 1 })).toBe(5);
    for (const bad of ['0', '1.5', '0x10', '', 'five', undefined]) {
      expect(() => integerOption('runs', bad, { min: 1 })).toThrow(/--runs must be a whole number/);
    }
  });

  it('choiceOption accepts only the listed values', () => {
    expect(choiceOption('db', 'sqlite', ['sqlite', 'postgres'])).toBe('sqlite');
    expect(choiceOption('db', undefined, ['sqlite'])).toBeUndefined();
    expect(() => choiceOption('db', 'mysql', ['sqlite', 'postgres'])).toThrow(
      '--db must be one of sqlite, postgres, got "mysql"',
    );
  });
});

describe('helpText', () => {
  it('lists every option with its default, and -h/--help', () => {
    const text = helpText(SPEC);
    expect(text).toContain('npm run demo --');
    expect(text).toMatch(/--runs N\s+How many runs\. \(default 3\)/);
    expect(text).toMatch(/--verbose\s+Say more\./);
    expect(text).toMatch(/-h, --help\s+Show this help and exit\./);
  });
});
