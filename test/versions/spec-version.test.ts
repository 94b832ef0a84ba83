/**
 * `npm run spec:version` ships a breaking change alone, in a temporary copy of the repository:
 * the owner narrows `limit` from 100 to 50 in the spec and runs the command, nothing else. The
 * module it writes restores 2026-12-01's bound by a document edit only, the "current version"
 * prose moves with `info.version`, the gate passes, and the copy's service gives a client
 * pinned to 2026-12-01 its old bound while 2027-01-01 gets the new one.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionChange } from '../../contract/version-change.js';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import { startService } from '../../tooling/fuzz/service.js';
import { worktreeReader } from '../../tooling/spec-gate/git-base.js';
import { loadSpec } from '../../tooling/spec-gate/load-spec.js';
import { copyRepository, runInCopy } from '../support/repo-copy.js';

const ROOT = process.cwd();
const NEW = '2027-01-01';
let copy: string;

/** The Limit parameter's schema bound, as the spec writes it. */
const LIMIT_100 = 'default: 10';
function narrowLimit(text: string): string {
  const at = text.indexOf('    Limit:\n');
  const bound = text.indexOf('maximum: 100', at);
  expect(at).toBeGreaterThan(0);
  expect(text.slice(bound, text.indexOf(LIMIT_100, at))).toMatch(/^maximum: 100\s+$/);
  return `${text.slice(0, bound)}maximum: 50${text.slice(bound + 'maximum: 100'.length)}`;
}

beforeAll(() => {
  copy = copyRepository(ROOT, 'spec-version-');
  const spec = join(copy, 'spec/openapi.yaml');
  writeFileSync(spec, narrowLimit(readFileSync(spec, 'utf8')));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('npm run spec:version', () => {
  it('ships the limit narrowing with the spec edit alone: the gate passes, 2026-12-01 keeps 100', async () => {
    const shipped = runInCopy(copy, ['scripts/spec-version.ts', NEW]);
    expect(shipped.code, shipped.output).toBe(0);
    const module = readFileSync(join(copy, `spec/versions/${NEW}.ts`), 'utf8');
    expect(module).toContain("{ parameter: 'Limit', at: '/schema/maximum', was: 100 }");
    expect(module).not.toContain('todo(');
    expect(readFileSync(join(copy, 'spec/versions/index.ts'), 'utf8')).toContain(`'./${NEW}.js'`);
    expect(readFileSync(join(copy, 'spec/openapi.yaml'), 'utf8')).toContain(`version: '${NEW}'`);
    expect(readFileSync(join(copy, 'spec/CHANGELOG.md'), 'utf8')).toContain(
      `## ${NEW}\n\n- Breaking: \`/components/parameters/Limit/schema\``,
    );
    expect(readFileSync(join(copy, 'README.md'), 'utf8')).toContain(`version, \`${NEW}\``);
    expect(readFileSync(join(copy, 'spec/guides/versioning.md'), 'utf8')).toContain(
      `(the current one is \`${NEW}\`)`,
    );

    const generated = runInCopy(copy, ['scripts/generate.ts']);
    expect(generated.code, generated.output).toBe(0);
    const service = await startService(copy, { dialect: 'sqlite' });
    try {
      const status = async (version: string) =>
        (
          await fetch(`${service.baseUrl}/v1/patients?limit=80`, {
            headers: { Authorization: `Bearer ${service.secret}`, 'PatientCare-Version': version },
          })
        ).status;
      expect({ '2026-12-01': await status('2026-12-01'), [NEW]: await status(NEW) }).toEqual({
        '2026-12-01': 200,
        [NEW]: 400,
      });
    } finally {
      await service.stop();
    }

    // The older document keeps its own prose: derived by the copy's modules, it names
    // 2026-12-01 as current, and only the newest says 2027-01-01.
    const { versionChanges } = (await import(join(copy, 'spec/versions/index.ts'))) as {
      versionChanges: VersionChange[];
    };
    const head = await loadSpec('spec/openapi.yaml', { root: copy, read: worktreeReader(copy) });
    const older = JSON.stringify(
      deriveDocument(head.document, createRegistry(versionChanges), '2026-12-01'),
    );
    expect(older).toContain('the current one is `2026-12-01`');
    expect(older).not.toContain(NEW);
    expect(JSON.stringify(head.document)).toContain(`the current one is \`${NEW}\``);

    const gate = runInCopy(copy, [
      'scripts/spec-check.ts',
      '--base',
      join(ROOT, 'spec/openapi.yaml'),
    ]);
    expect(gate.code, gate.output).toBe(0);
    expect(gate.output).toContain('spec:check passed');

    // A stale "current version" in prose fails the gate, naming the file and the line.
    const readme = join(copy, 'README.md');
    writeFileSync(
      readme,
      readFileSync(readme, 'utf8').replace(`version, \`${NEW}\``, 'version, `2026-12-01`'),
    );
    const stale = runInCopy(copy, [
      'scripts/spec-check.ts',
      '--only',
      'breaking',
      '--base',
      join(ROOT, 'spec/openapi.yaml'),
    ]);
    expect(stale.code).toBe(1);
    expect(stale.output).toMatch(/README\.md:\d+: names 2026-12-01 as the current version/);
  }, 900_000);
});
