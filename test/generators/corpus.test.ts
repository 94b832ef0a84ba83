/**
 * Every real-world document in ../shared/corpus generates with the same script and its output
 * type-checks with tsc against the project's own runtime modules. The slowest test of the suite
 * (GitHub's document alone is 13 MB): one generate per document, then one tsc over all outputs.
 * Output goes to the git-ignored `.corpus-out/`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CORPUS = join(ROOT, '..', 'shared', 'corpus');
const OUT = '.corpus-out';
const run = promisify(execFile);

const documents = existsSync(CORPUS)
  ? readdirSync(CORPUS)
      .filter((name) => /\.(ya?ml|json)$/.test(name))
      .sort()
  : [];
const folder = (file: string) => file.replace(/\.(ya?ml|json)$/, '').replace(/[^a-z0-9-]+/gi, '-');

describe('corpus', () => {
  it('has documents to test', () => {
    expect(documents.length).toBeGreaterThanOrEqual(3);
  });

  for (const file of documents) {
    it(`${file} generates types, client and routes`, async () => {
      const { stdout } = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/generate.ts',
          '--spec',
          join(CORPUS, file),
          '--out',
          `${OUT}/${folder(file)}`,
        ],
        { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      );
      expect(stdout).toMatch(/done: \d+ operation\(s\), 3 file\(s\)/);
      for (const name of ['types.ts', 'client.ts', 'routes.ts']) {
        expect(existsSync(join(ROOT, OUT, folder(file), name)), name).toBe(true);
      }
    }, 300_000);
  }

  it('type-checks every output with tsc against the project runtime', async () => {
    mkdirSync(join(ROOT, OUT), { recursive: true });
    writeFileSync(
      join(ROOT, OUT, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.json',
        compilerOptions: { noEmit: true, skipLibCheck: true },
        include: documents.map((file) => `${folder(file)}/*.ts`),
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(
      process.execPath,
      ['--max-old-space-size=4096', tsc, '-p', `${OUT}/tsconfig.json`],
      {
        cwd: ROOT,
        maxBuffer: 64 * 2 ** 20,
      },
    ).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result.stdout.split('\n').slice(0, 20).join('\n')).toBe('');
    expect(result.code).toBe(0);
  }, 900_000);
});
