/**
 * Documents as real ones are written: a `$ref` into `paths` (a schema inline in one operation,
 * reused by pointer), parameter names such as `field[]` and `page.size`, a path parameter with
 * a hyphen, an operationId that is not an identifier and a component named `__proto__`. The
 * command generates all three files and they type-check.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = '.corpus-out/edge-test';
const run = promisify(execFile);
afterAll(() => rmSync(join(ROOT, OUT), { recursive: true, force: true }));

describe('edge documents', () => {
  it('generate -- --spec test/fixtures/specs/edge/openapi.yaml gives files that type-check', async () => {
    const generated = await run(
      process.execPath,
      [
        '--import',
        './tooling/node/ts-resolve.mjs',
        'scripts/generate.ts',
        '--spec',
        'test/fixtures/specs/edge/openapi.yaml',
        '--out',
        OUT,
      ],
      { cwd: ROOT },
    );
    expect(generated.stdout).toMatch(/done: 3 operation\(s\), 3 file\(s\)/);
    mkdirSync(join(ROOT, OUT), { recursive: true });
    writeFileSync(
      join(ROOT, OUT, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../tsconfig.json',
        compilerOptions: { noEmit: true, skipLibCheck: true },
        include: ['*.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const checked = await run(process.execPath, [tsc, '-p', `${OUT}/tsconfig.json`], {
      cwd: ROOT,
    }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
  }, 300_000);
});
