/**
 * The command-line runner lives in `server/cli/command.ts`, because the shipped operator
 * command (`build/cli.js`) uses it and production code does not import from `tooling/`. Dev
 * entry points (`scripts/`, `bench/`) keep importing it from here.
 */
export * from '../../server/cli/command.js';
