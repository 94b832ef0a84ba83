/**
 * The list of versions is read from the modules again when it changes, so a long-running
 * process (the dev loop's toolchain and its regeneration worker) never serves a stale list:
 * the bundler's enums follow `spec/versions/index.ts`, and regeneration writes every older
 * version's files from the modules as they are now.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { versions } from '../../server/versioning/index.js';
import { regenerate } from '../../tooling/dev/regenerate.js';
import { bundleSpec } from '../../tooling/docs/spec-bundle.js';
import { moduleDates } from '../../tooling/openapi/version-list.js';

const dir = mkdtempSync(join(tmpdir(), 'version-list-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the version list is re-read', () => {
  it('moduleDates follows an index that gains a module', async () => {
    const index = join(dir, 'index.ts');
    writeFileSync(index, "export const versionChanges = [{ date: '2026-11-01' }];\n");
    utimesSync(index, new Date(1_000_000), new Date(1_000_000));
    expect(await moduleDates(index)).toEqual(['2026-11-01']);
    writeFileSync(
      index,
      "export const versionChanges = [{ date: '2026-12-01' }, { date: '2026-11-01' }];\n",
    );
    utimesSync(index, new Date(2_000_000), new Date(2_000_000));
    expect(await moduleDates(index)).toEqual(['2026-11-01', '2026-12-01']);
  });

  it('the bundled spec lists the modules, and regeneration writes every older version', async () => {
    const document = (await bundleSpec('spec/openapi.yaml')) as Record<string, unknown>;
    const components = document.components as { schemas: { ApiVersion: { enum: string[] } } };
    expect(components.schemas.ApiVersion.enum).toEqual([...versions.supported].reverse());
    expect((document.info as Record<string, unknown>)['x-versions']).toBeUndefined();
    const result = await regenerate({
      root: process.cwd(),
      document,
      outDir: 'generated',
      remakeCommand: 'npm run generate',
      handlersDir: null,
      versions: true,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const older = versions.supported.filter((v) => v !== versions.latest);
    for (const version of older) {
      expect(result.files.has(resolve(`generated/versions/${version}/routes.ts`))).toBe(true);
    }
    expect(result.files.get(resolve('generated/versions/index.ts'))).toContain(
      `'${older[0]}': () => import(`,
    );
  });
});
