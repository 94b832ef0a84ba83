/**
 * The supported versions, read from the version-change modules (one per date): newest first,
 * the newest being the spec's `info.version`. Nothing else lists dates.
 */
import type { VersionChange } from './version-change.js';

const DATED = /^\d{4}-\d{2}-\d{2}$/;

/** The supported versions and the changes between them. */
export interface VersionRegistry {
  /** The newest date (`info.version`); handlers speak only this one. */
  readonly latest: string;
  /** Every supported date, newest first. */
  readonly supported: readonly string[];
  /** The modules, newest first. */
  readonly changes: readonly VersionChange[];
  /** The changes a response crosses on its way down to `version`, newest first. */
  changesAbove(version: string): readonly VersionChange[];
}

/**
 * Builds the registry; throws when two modules share a date or a date is not `YYYY-MM-DD`
 * (a programming error caught by the tests, never at a request).
 */
export function createRegistry(changes: readonly VersionChange[]): VersionRegistry {
  const sorted = [...changes].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  const [newest] = sorted;
  if (newest === undefined) throw new Error('no version-change modules');
  let previous: VersionChange | undefined;
  for (const change of sorted) {
    if (!DATED.test(change.date))
      throw new Error(`version change date ${change.date} is not YYYY-MM-DD`);
    if (previous?.date === change.date) throw new Error(`two version changes dated ${change.date}`);
    previous = change;
  }
  const above = new Map<string, VersionChange[]>();
  for (const [i, change] of sorted.entries()) above.set(change.date, sorted.slice(0, i));
  return {
    latest: newest.date,
    supported: sorted.map((c) => c.date),
    changes: sorted,
    changesAbove(version) {
      const found = above.get(version);
      if (found === undefined) throw new Error(`unsupported version ${version}`);
      return found;
    },
  };
}
