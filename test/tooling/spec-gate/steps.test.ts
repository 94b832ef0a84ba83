import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { driftStep, typesStep } from '../../../tooling/spec-gate/command-steps.js';
import { formatReport, runSpecCheck } from '../../../tooling/spec-gate/run-spec-check.js';

const fixtures = fileURLToPath(new URL('../../fixtures/spec-gate/', import.meta.url));
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

  it('types compiles the project, so hand-written code broken by a spec change fails it', async () => {
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
    // The spec renamed `family` to `surname`; the generated type compiles on its own.
    writeFileSync(join(root, 'generated/types.ts'), 'export type Name = { surname: string };\n');
    writeFileSync(
      join(root, 'server/handler.ts'),
      "import type { Name } from '../generated/types.js';\nexport const name: Name = { family: 'x' };\n",
    );
    const broken = await typesStep(root);
    expect(broken.status).toBe('fail');
    expect(broken.details.join('\n')).toMatch(/server\/handler\.ts.*'family'/);
    writeFileSync(
      join(root, 'server/handler.ts'),
      "import type { Name } from '../generated/types.js';\nexport const name: Name = { surname: 'x' };\n",
    );
    expect(await typesStep(root)).toMatchObject({ status: 'pass' });
  }, 60_000);

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
