/**
 * What each handler module exports, as `generators/handler-stubs.ts` reads it with the
 * TypeScript parser, kept by the module's content: after a spec edit the handler modules are
 * usually as they were, and their parse (plus loading TypeScript's 9 MB compiler into the
 * thread that makes the stubs) was ~60 ms of a ~0.9 s `npm run generate` on a quiet machine
 * (`node --cpu-prof`, BENCHMARKS.md issue 44). An entry is named by a SHA-256 of the module's
 * name and text; the file holding the entries is named by the content of the code that reads
 * them (`HANDLER_PARSE_INPUTS`), so changed code never reads an older answer. It lives beside
 * generate's other cache entries (tooling/generate/cache.ts); a file that cannot be read or
 * written is no error, the modules are just parsed again.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type ExportsReader,
  exportsOf,
  type ModuleExports,
} from '../../generators/handler-stubs.js';
import { cacheFolder, inputsKey } from './cache.js';

/**
 * The files whose content decides what `exportsOf` answers, relative to the repository this
 * code runs from: the parser's folder and what it imports (test/generators/cache.test.ts walks
 * the imports to keep it so), and package-lock.json for TypeScript's version. Wider than the
 * parser needs; a change there only costs one parse of each module.
 */
export const HANDLER_PARSE_INPUTS: readonly string[] = [
  'package-lock.json',
  'generators',
  'contract',
  'tooling/openapi',
];

/** This code's repository: the parser the key describes is the one running. */
const CODE_ROOT = resolve(import.meta.dirname, '..', '..');

interface StoredExports {
  names: string[];
  annotated: [string, string][];
  imported: string[];
}

/** A reader that answers from the kept entries and parses the rest; `save` keeps new ones. */
export interface CachedExports {
  read: ExportsReader;
  /** Writes the entries when a module was parsed this run (nothing otherwise). */
  save(): void;
}

/**
 * The cached reader for the handler modules of a repository at `root` (its cache folder).
 *
 * @example const exports = cachedExports(root); reconcileHandlers(ops, modules, exports.read); exports.save();
 */
export function cachedExports(root: string): CachedExports {
  const folder = join(cacheFolder(root), 'handler-exports');
  const file = join(folder, `${inputsKey(CODE_ROOT, HANDLER_PARSE_INPUTS, [])}.json`);
  const entries = readEntries(file);
  let added = false;
  return {
    read(name, text) {
      const key = createHash('sha256').update(`${name}\0${text}`).digest('hex');
      const kept = entries.get(key);
      if (kept) return fromStored(kept);
      const found = exportsOf(name, text);
      entries.set(key, toStored(found));
      added = true;
      return found;
    },
    save() {
      if (!added) return;
      try {
        mkdirSync(folder, { recursive: true });
        // Entries of other code are never read again.
        for (const name of readdirSync(folder)) rmSync(join(folder, name), { force: true });
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, JSON.stringify(Object.fromEntries(entries)));
        renameSync(partial, file);
      } catch {
        // Read-only node_modules, a full disk: the next run parses again.
      }
    },
  };
}

function readEntries(file: string): Map<string, StoredExports> {
  if (!existsSync(file)) return new Map();
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, StoredExports>;
    const entries = new Map<string, StoredExports>();
    for (const [key, value] of Object.entries(parsed)) {
      if (
        Array.isArray(value?.names) &&
        Array.isArray(value.annotated) &&
        Array.isArray(value.imported)
      ) {
        entries.set(key, value);
      }
    }
    return entries;
  } catch {
    return new Map();
  }
}

function toStored(found: ModuleExports): StoredExports {
  return {
    names: [...found.names],
    annotated: [...found.annotated],
    imported: [...found.imported],
  };
}

/** A fresh copy each time: `reconcileHandlers` adds to the sets it is given. */
function fromStored(stored: StoredExports): ModuleExports {
  return {
    names: new Set(stored.names),
    annotated: new Map(stored.annotated),
    imported: new Set(stored.imported),
  };
}
