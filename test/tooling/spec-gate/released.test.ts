/**
 * `npm run spec:release`: writes the bundled contract once, is a no-op for the same contract,
 * refuses to rewrite a released version or to release a date the spec is not.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSpec } from '../../../tooling/docs/spec-bundle.js';
import { readReleased, releasedVersions } from '../../../tooling/spec-gate/released.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const cli = join(repoRoot, 'scripts/spec-release.ts');
const dir = mkdtempSync(join(tmpdir(), 'spec-release-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function release(...args: string[]) {
  const r = spawnSync(tsx, [cli, ...args], { cwd: dir, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run spec:release', () => {
  it('writes spec/released/<date>.json once, bundled; the same contract again changes nothing', async () => {
    cpSync(join(repoRoot, 'test/fixtures/spec-gate/split'), join(dir, 'spec'), { recursive: true });
    const first = release('2026-11-01');
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(first.out).toContain('released 2026-11-01: wrote spec/released/2026-11-01.json');
    expect(releasedVersions(dir)).toEqual(['2026-11-01']);
    expect(readReleased(dir, '2026-11-01')).toEqual(
      await bundleSpec(join(dir, 'spec/openapi.yaml')),
    );
    const file = join(dir, 'spec/released/2026-11-01.json');
    const text = readFileSync(file, 'utf8');
    const again = release('2026-11-01');
    expect(again.code).toBe(0);
    expect(again.out).toContain('unchanged');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses to rewrite a released version with another contract', () => {
    const spec = join(dir, 'spec/openapi.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace(/title: .*/, 'title: Renamed'));
    const r = release('2026-11-01');
    expect(r.code).toBe(1);
    expect(r.err).toContain('already holds a different contract');
  });

  it('refuses a date that is not the spec info.version, or not a date, in one line', () => {
    const other = release('2027-01-01');
    expect(other.code).toBe(1);
    expect(other.err.trim()).toBe(
      'spec:release: spec/openapi.yaml is info.version 2026-11-01, not 2027-01-01',
    );
    const typo = release('2027-1-1');
    expect(typo.code).toBe(2);
    expect(typo.err.trim().split('\n')).toHaveLength(1);
    expect(release().code).toBe(2);
    expect(releasedVersions(dir)).toEqual(['2026-11-01']);
  });
});
