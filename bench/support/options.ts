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
