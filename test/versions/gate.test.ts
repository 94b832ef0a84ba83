/**
 * The gate's coverage rule, with passing and failing fixtures built from the real files: the
 * base is the 2026-11-01 spec as released (commit 6cc14ed), the head today's spec, changelog
 * and version-change modules, each fixture changing one thing.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { versionChanges } from '../../spec/versions/index.js';
import { runBreakingCheck } from '../../tooling/spec-gate/breaking-step.js';
import { changelogSection } from '../../tooling/spec-gate/version-coverage.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'version-gate-'));
  execFileSync('sh', [
    '-c',
    `mkdir '${dir}/base' && git -C '${process.cwd()}' archive 6cc14ed spec | tar -x -C '${dir}/base'`,
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A head repository: today's spec folder, with `edit` applied to the spec or changelog text. */
function head(
  name: string,
  edit: { spec?: (t: string) => string; changelog?: (t: string) => string } = {},
) {
  const root = join(dir, name);
  cpSync('spec', join(root, 'spec'), { recursive: true });
  const spec = join(root, 'spec/openapi.yaml');
  const changelog = join(root, 'spec/CHANGELOG.md');
  writeFileSync(spec, (edit.spec ?? ((t) => t))(readFileSync(spec, 'utf8')));
  writeFileSync(changelog, (edit.changelog ?? ((t) => t))(readFileSync(changelog, 'utf8')));
  return root;
}

function check(root: string, changes: readonly VersionChange[] = versionChanges) {
  return runBreakingCheck({
    root,
    spec: 'spec/openapi.yaml',
    changelog: 'spec/CHANGELOG.md',
    baseFile: join(dir, 'base/spec/openapi.yaml'),
    versionChanges: changes,
  });
}

describe('a breaking change passes only when a dated version covers it', () => {
  it('passes: the 2026-12-01 module covers every breaking change since 2026-11-01', async () => {
    const outcome = await check(head('pass'));
    expect(outcome.details.join('\n')).not.toContain('FAIL');
    expect(outcome.status).toBe('pass');
  });

  it('fails: a breaking change listed in the changelog but absent from the module', async () => {
    // `reason` leaves Appointment responses: listed, so the old rule alone would pass it.
    const root = head('uncovered', {
      spec: (t) =>
        t.replace(
          `        reason:\n          type: string\n          nullable: true\n          description: Why the visit is booked, in words.\n          maxLength: 500\n`,
          '',
        ),
      changelog: (t) =>
        t.replace(
          '## 2026-12-01\n',
          '## 2026-12-01\n\n- Removed `/components/schemas/Appointment/properties/reason`.\n',
        ),
    });
    const outcome = await check(root);
    expect(outcome.status).toBe('fail');
    const text = outcome.details.join('\n');
    expect(text).toContain('not covered by a version change');
    expect(text).toContain('/components/schemas/Appointment/properties/reason');
  });

  it('fails: the module without its document edits leaves the time change uncovered', async () => {
    const [first, latest] = versionChanges;
    const bare = { ...latest!, document: [] };
    const outcome = await check(head('no-edits'), [first!, bare]);
    expect(outcome.status).toBe('fail');
    expect(outcome.details.join('\n')).toMatch(/Appointment\/properties\/start/);
  });

  it('fails: info.version moved without a module of that date', async () => {
    const outcome = await check(head('no-module'), [versionChanges[0]!]);
    expect(outcome.status).toBe('fail');
    expect(outcome.details.join('\n')).toContain('add spec/versions/2026-12-01.ts');
  });

  it('fails: the changelog section does not hold the module bullets, and shows them', async () => {
    const latest = versionChanges[1]!;
    const root = head('changelog', {
      changelog: (t) => t.replace(`- ${latest.changelog[1]}`, '- Added DateTime.'),
    });
    const outcome = await check(root);
    expect(outcome.status).toBe('fail');
    expect(outcome.details.join('\n')).toContain(changelogSection(latest).trim());
  });
});
