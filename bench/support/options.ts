/**
 * Option checks of the bench commands: every parse of a number or a choice goes through
 * `checked`, so a bad value is the command's one-line usage error (exit 2), never a stack.
 */
import { exitOnFailure } from '../../tooling/cli/command.js';

/** `read()`'s result; a `UsageError` it throws ends the process as `prefix`'s usage error. */
export function checked<T>(prefix: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    return exitOnFailure(prefix)(error);
  }
}

// The options several benches share, spelled once: each takes its default (or the results
// file's name) and keeps `parseOrExit`'s typing (an option with a default is always set).

/** `--runs N`: runs of an A/B measurement, whose medians are reported. */
export function runsOption(runs: number) {
  return {
    type: 'string',
    value: 'N',
    default: String(runs),
    description: 'Runs (medians are reported).',
  } as const;
}

/** `--rounds N`: rounds of alternating variants, whose medians are reported. */
export function roundsOption(rounds: number) {
  return {
    type: 'string',
    value: 'N',
    default: String(rounds),
    description: 'Rounds (medians are reported).',
  } as const;
}

/** `--seconds S`: the length of one measurement (or of the phase `description` names). */
export function secondsOption(seconds: number, description = 'Seconds per measurement.') {
  return { type: 'string', value: 'S', default: String(seconds), description } as const;
}

/** `--connections N`: the load generator's concurrent connections. */
export function connectionsOption(connections: number) {
  return {
    type: 'string',
    value: 'N',
    default: String(connections),
    description: 'Concurrent connections.',
  } as const;
}

/** `--out FILE`: where the results go, by default `bench/results/<name>`. */
export function outOption(name: string) {
  return {
    type: 'string',
    value: 'FILE',
    description: `Results file (default bench/results/${name}).`,
  } as const;
}
