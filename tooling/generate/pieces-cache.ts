/**
 * The piece cache of `types.ts` (generators/types-pieces.ts) on disk: one file,
 * `types-pieces.json` in generate's cache folder (tooling/generate/cache.ts), read once when the
 * types thread starts and written whole, then renamed, after a document was typed. It keeps
 * only the pieces used since it was read, so it holds one run's pieces (every version's) and
 * never grows with the spec's history. A missing, unreadable or foreign file is an empty cache;
 * a cache that cannot be written is no error (the next run prints those pieces again).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PieceCache } from '../../generators/types-pieces.js';

/** The file's name in the cache folder (not an entry of cache.ts: those are named by key). */
export const PIECES_FILE = 'types-pieces.json';
/** Bumped when the file's shape changes. */
const FORMAT = 1;

/** A {@link PieceCache} read from a folder, with what it was asked for written back by `save`. */
export interface StoredPieces extends PieceCache {
  /** Writes the pieces used since it was read (nothing when they are what was read). */
  save(): void;
}

/**
 * The cache in `folder` (`undefined`: in memory only, for this process).
 *
 * @example const pieces = openPieceCache(cacheFolder(root)); generateTypesPieced(copy, pieces); pieces.save();
 */
export function openPieceCache(folder: string | undefined): StoredPieces {
  const stored = folder === undefined ? new Map<string, string>() : readPieces(folder);
  // How many pieces the file holds; `used` is a subset until something is added.
  let inFile = stored.size;
  const used = new Map<string, string>();
  let added = false;
  return {
    get(key) {
      const text = stored.get(key);
      if (text !== undefined) used.set(key, text);
      return text;
    },
    set(key, text) {
      stored.set(key, text);
      used.set(key, text);
      added = true;
    },
    save() {
      // Nothing added and every piece read was used: the file already holds exactly these.
      if (folder === undefined || (!added && used.size === inFile)) return;
      added = false;
      inFile = used.size;
      writePieces(folder, used);
    },
  };
}

function readPieces(folder: string): Map<string, string> {
  try {
    const file = JSON.parse(readFileSync(join(folder, PIECES_FILE), 'utf8')) as {
      format?: unknown;
      pieces?: unknown;
    };
    if (file.format !== FORMAT || !file.pieces || typeof file.pieces !== 'object') return new Map();
    return new Map(
      Object.entries(file.pieces).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
  } catch {
    return new Map();
  }
}

function writePieces(folder: string, pieces: Map<string, string>): void {
  try {
    mkdirSync(folder, { recursive: true });
    const file = join(folder, PIECES_FILE);
    const partial = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(partial, JSON.stringify({ format: FORMAT, pieces: Object.fromEntries(pieces) }));
    renameSync(partial, file);
  } catch {
    // Read-only node_modules, a full disk: the next run prints those pieces again.
  }
}
