import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  driftStep,
  SPEC_CHECK_TSCONFIG,
  typesStep,
} from '../../../tooling/spec-gate/command-steps.js';
import { formatReport, runSpecCheck } from '../../../tooling/spec-gate/run-spec-check.js';

const fixtures = fileURLToPath(new URL('../../fixtures/spec-gate/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const temps: string[] = [];

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spec-gate-steps-'));
  temps.push(dir);
  cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
  return dir;
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('spec:check steps', () => {
  it('reports steps whose tooling has not landed as not available', async () => {
    const root = tempRoot();
    expect(await driftStep(root)).toMatchObject({ status: 'skip' });
    expect(await typesStep(root)).toMatchObject({ status: 'skip' });
  });

  it('types checks the users of generated/, from a warm cache too; a doc comment changes no verdict', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spec-gate-types-'));
    temps.push(root);
    mkdirSync(join(root, 'generated'));
    mkdirSync(join(root, 'server'));
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', target: 'ES2022', types: [] },
        include: ['generated', 'server'],
      }),
    );
    writeFileSync(
      join(root, SPEC_CHECK_TSCONFIG),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { removeComments: true } }),
    );
    const types = (doc: string, field: string) =>
      writeFileSync(
        join(root, 'generated/types.ts'),
        `export type Name = {\n  /** ${doc} */\n  ${field}: string;\n};\n`,
      );
    writeFileSync(
      join(root, 'server/handler.ts'),
      "import type { Name } from '../generated/types.js';\nexport const name: Name = { family: 'x' };\n",
    );
    types('The family name.', 'family');
    expect(await typesStep(root)).toMatchObject({ status: 'pass' });
    // A description edit: the comment changes, the shape does not.
    types('The family name (surname).', 'family');
    expect(await typesStep(root)).toMatchObject({ status: 'pass' });
    // The spec renamed `family` to `surname`; the generated type compiles on its own, and the
    // build info from the passing runs must not hide the handler that still uses `family`.
    types('The family name (surname).', 'surname');
    const broken = await typesStep(root);
    expect(broken.status).toBe('fail');
    expect(broken.details.join('\n')).toMatch(/server\/handler\.ts.*'family'/);
    writeFileSync(
      join(root, 'server/handler.ts'),
      "import type { Name } from '../generated/types.js';\nexport const name: Name = { surname: 'x' };\n",
    );
    expect(await typesStep(root)).toMatchObject({ status: 'pass' });
  }, 120_000);

  it("the gate's project holds every service, client and contract file that imports generated/", () => {
    const listed = spawnSync(
      process.execPath,
      [TSC, '-p', SPEC_CHECK_TSCONFIG, '--listFilesOnly'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(listed.status).toBe(0);
    const inProject = new Set(
      listed.stdout
        .split('\n')
        .filter((f) => f.startsWith(`${ROOT}/`))
        .map((f) => relative(ROOT, f)),
    );
    const importers = ['server', 'client', 'contract'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(dir, f))
        .filter((f) => /from '(\.\.\/)+generated\//.test(readFileSync(join(ROOT, f), 'utf8'))),
    );
    expect(importers.length).toBeGreaterThan(10);
    expect(importers.filter((f) => !inProject.has(f))).toEqual([]);
    for (const f of ['generated/types.ts', 'generated/routes.ts', 'generated/client.ts']) {
      expect(inProject.has(f)).toBe(true);
    }
    // Tests are npm run typecheck's, not the gate's.
    expect([...inProject].filter((f) => f.startsWith('test/'))).toEqual([]);
  }, 120_000);

  it('prints one table and the details of failed steps; a crashing step fails alone', async () => {
    const root = tempRoot();
    writeFileSync(join(root, 'spec/openapi.yaml'), 'paths: [unclosed');
    const results = await runSpecCheck({
      root,
      spec: 'spec/openapi.yaml',
      changelog: 'spec/CHANGELOG.md',
      only: ['drift', 'breaking'],
    });
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['drift', 'skip'],
      ['breaking', 'fail'],
    ]);
    const report = formatReport(results);
    expect(report).toMatch(/^spec:check\nstep +result +time +summary\ndrift +SKIP +\d+\.\d s/);
    expect(report).toContain('spec/openapi.yaml is not valid YAML');
    expect(report.trimEnd().endsWith('spec:check FAILED: breaking')).toBe(true);
  });
});
