import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  it('reports steps whose tooling has not landed as not available', () => {
    const root = tempRoot();
    expect(driftStep(root)).toMatchObject({ status: 'skip' });
    expect(typesStep(root)).toMatchObject({ status: 'skip' });
  });

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
