/**
 * tooling/generate/pieces-cache.ts: the piece cache's file. A missing or corrupt file is an
 * empty cache, `save` writes only the pieces used since it was read (whole, then renamed: no
 * temporary file stays), and writes nothing when those are exactly what the file holds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPieceCache, PIECES_FILE } from '../../../tooling/generate/pieces-cache.js';

const base = mkdtempSync(join(tmpdir(), 'pc-pieces-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let folders = 0;
const folder = () => join(base, String(folders++));

describe('the piece cache file', () => {
  it('starts empty without a file, and keeps what was set', () => {
    const dir = folder();
    const first = openPieceCache(dir);
    expect(first.get('a')).toBeUndefined();
    first.set('a', 'text a');
    first.set('b', 'text b');
    first.save();
    expect(readdirSync(dir)).toEqual([PIECES_FILE]);
    const second = openPieceCache(dir);
    expect(second.get('a')).toBe('text a');
    expect(second.get('b')).toBe('text b');
  });

  it('keeps only the pieces used since it was read', () => {
    const dir = folder();
    const first = openPieceCache(dir);
    for (const key of ['a', 'b', 'c']) first.set(key, `text ${key}`);
    first.save();
    const second = openPieceCache(dir);
    second.get('a');
    second.set('d', 'text d');
    second.save();
    const third = openPieceCache(dir);
    expect(['a', 'b', 'c', 'd'].map((key) => third.get(key))).toEqual([
      'text a',
      undefined,
      undefined,
      'text d',
    ]);
  });

  it('writes nothing when every piece read was used and none added', () => {
    const dir = folder();
    const first = openPieceCache(dir);
    first.set('a', 'text a');
    first.save();
    const file = join(dir, PIECES_FILE);
    writeFileSync(file, readFileSync(file, 'utf8')); // a known mtime to compare against
    const before = statSync(file).mtimeMs;
    const second = openPieceCache(dir);
    second.get('a');
    second.save();
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('reads a corrupt or foreign file as an empty cache, and replaces it', () => {
    const dir = folder();
    openPieceCache(dir).save(); // nothing to write: no folder needed
    const first = openPieceCache(dir);
    first.set('a', 'text a');
    first.save();
    for (const content of ['{ not json', '{"format":99,"pieces":{"a":"text a"}}', '[]']) {
      writeFileSync(join(dir, PIECES_FILE), content);
      const cache = openPieceCache(dir);
      expect(cache.get('a')).toBeUndefined();
      cache.set('b', 'text b');
      cache.save();
      expect(openPieceCache(dir).get('b')).toBe('text b');
    }
  });

  it('lives in memory only without a folder', () => {
    const cache = openPieceCache(undefined);
    cache.set('a', 'text a');
    cache.save();
    expect(cache.get('a')).toBe('text a');
  });
});
