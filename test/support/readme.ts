/**
 * The README's runnable parts for tests that run them as written: its `sh` blocks between two
 * headings, and a PATH with the machine's own `node` first (a newcomer's shell), where it has one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export const README = join(import.meta.dirname, '..', '..', 'README.md');

/** The `sh` blocks of the README between the headings `from` and `to`, in order. */
export function readmeBlocks(from: string, to: string): string[] {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(from);
  const end = readme.indexOf(to, start);
  if (start < 0 || end < start) throw new Error(`README: the section "${from}" is missing`);
  return [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map(
    (match) => match[1] ?? '',
  );
}

/** The walk's blocks: "Five minutes with curl" up to "Where to go next". */
export function walkBlocks(): string[] {
  return readmeBlocks('## Five minutes with curl', '## Where to go next');
}

/**
 * PATH with the node_modules/.bin folders taken out, so `node` is the machine's own, when the
 * machine has one; else PATH as it is.
 */
export function newcomerPath(): string {
  const path = process.env.PATH ?? '';
  const machine = path
    .split(delimiter)
    .filter((entry) => !entry.includes('node_modules') && !entry.includes('patient-care'));
  const hasNode = machine.some((folder) => folder !== '' && existsSync(join(folder, 'node')));
  return hasNode ? machine.join(delimiter) : path;
}
