import type { Change } from '../breaking/types.js';

/** A dated API version, as in `info.version` and `PatientCare-Version`. */
export const DATED_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isDatedVersion(value: unknown): value is string {
  if (typeof value !== 'string' || !DATED_VERSION.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

/**
 * Parses `spec/CHANGELOG.md`: one `## YYYY-MM-DD` heading per API version, and under it bullet
 * lines (`- ` or `* `). Every `` `code span` `` on a bullet names what it covers: a JSON pointer
 * (covers that node and everything under it), an operation (`` `POST /v1/patients` ``), or a
 * webhook (`` `webhook patient.created` ``).
 *
 * @returns version → the code spans listed under it.
 */
export function parseChangelog(text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split(/\r?\n/)) {
    const heading = /^##\s+(\S+)\s*$/.exec(line);
    if (heading) {
      current = [];
      sections.set(heading[1] ?? '', current);
      continue;
    }
    if (current && /^\s*[-*]\s/.test(line)) {
      for (const m of line.matchAll(/`([^`]+)`/g)) current.push((m[1] ?? '').trim());
    }
  }
  return sections;
}

/** True when one of the listed entries names the change: its pointer (or a parent; pointers need
 * ≥ 2 segments, so a bare `/paths` cannot wave everything through), the form the report shows
 * it in (`shown`: `schemas/patient.yaml#/Patient/...` for a split file), or an operation it
 * reaches. */
export function isListed(
  change: Change,
  entries: readonly string[],
  shown: string = change.pointer,
): boolean {
  const pointers = [change.pointer, shown];
  const operations = change.operations ?? (change.operation ? [change.operation] : []);
  return entries.some((entry) => {
    if (operations.includes(entry)) return true;
    if (entry.split('/').length < 3 && !entry.includes('#')) return false;
    return pointers.some((p) => isAncestorOrSelf(entry, p));
  });
}

/** True when `ancestor` equals `ptr` or contains it (segment-wise prefix). */
function isAncestorOrSelf(ancestor: string, ptr: string): boolean {
  return ptr === ancestor || ptr.startsWith(`${ancestor}/`);
}
