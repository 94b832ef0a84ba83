/**
 * A throw-away copy of what `npm run generate` reads and writes for our spec (its inputs, the
 * handler modules, generated/, the resolve hook, package.json), with the repository's
 * node_modules linked in: `bench:generate` edits the spec there to time the run an owner makes
 * after an edit, and the cache tests hand-edit files there, never in the repository.
 */
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GENERATE_INPUTS } from './cache.js';

const ALSO_COPIED = ['package.json', 'server/handlers', 'generated', 'tooling/node'];

/** Copies our generate's files from `root` into the empty folder `dir`. */
export function scratchRepository(root: string, dir: string): void {
  for (const path of [...GENERATE_INPUTS, ...ALSO_COPIED]) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    cpSync(join(root, path), join(dir, path), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}
