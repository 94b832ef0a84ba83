/**
 * Every real-world document of the corpus (tooling/corpus/: GitHub's, OpenAI's and Stripe's,
 * from pinned npm packages) generates with the same script and its output type-checks with tsc
 * against the project's own runtime modules. Integration tier (GitHub's document alone is
 * 13 MB): one generate per document, then one tsc over all outputs. Output goes to the
 * git-ignored `.corpus-out/`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { corpusDocuments } from '../../tooling/corpus/corpus.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = '.corpus-out';
const run = promisify(execFile);

const documents = await corpusDocuments();

describe('corpus', () => {
  it('has documents to test', () => {
    expect(documents.length).toBeGreaterThanOrEqual(3);
  });

  for (const { name, file } of documents) {
    it(`${name} generates types, client and routes`, async () => {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'scripts/generate.ts', '--spec', file, '--out', `${OUT}/${name}`],
        { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      );
      expect(stdout).toMatch(/done: \d+ operation\(s\), 3 file\(s\)/);
      for (const output of ['types.ts', 'client.ts', 'routes.ts']) {
        expect(existsSync(join(ROOT, OUT, name, output)), output).toBe(true);
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
        include: documents.map(({ name }) => `${name}/*.ts`),
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
