/**
 * The gate's coverage rule, with passing and failing fixtures built from the real files: the
 * base is the 2026-11-01 contract as released (`spec/released/2026-11-01.json`), the head
 * today's spec, changelog and version-change modules, each fixture changing one thing.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { versionChanges } from '../../spec/versions/index.js';
import { runBreakingCheck } from '../../tooling/spec-gate/breaking-step.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'version-gate-'));
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

function check(
  root: string,
  changes: readonly VersionChange[] = versionChanges,
  baseFile = 'spec/released/2026-11-01.json',
) {
  return runBreakingCheck({
    root,
    spec: 'spec/openapi.yaml',
    changelog: 'spec/CHANGELOG.md',
    baseFile: join(root, baseFile),
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
    expect(outcome.details.join('\n')).toContain('npm run spec:version -- 2026-12-01');
  });

  it('fails: the changelog section does not hold the module bullets, and shows them', async () => {
    const latest = versionChanges[1]!;
    const root = head('changelog', {
      changelog: (t) => t.replace(`- ${latest.changelog[1]}`, '- Added DateTime.'),
    });
    const outcome = await check(root);
    expect(outcome.status).toBe('fail');
    // The section as CHANGELOG.md writes it: the date's heading, a blank line, one bullet each.
    const bullets = latest.changelog.map((line) => `- ${line}`).join('\n');
    expect(latest.changelog.length).toBeGreaterThan(1);
    expect(outcome.details.join('\n')).toContain(`## 2026-12-01\n\n${bullets}`);
  });
});

describe('every released contract holds, whatever the base', () => {
  it('fails a break of released versions that a base with the same break would hide', async () => {
    // The base branch already lost `reason` (say it merged unchecked): against it the head is
    // unchanged, yet both released contracts promise the property.
    const root = head('drifted-base', {
      spec: (t) =>
        t.replace(
          `        reason:\n          type: string\n          nullable: true\n          description: Why the visit is booked, in words.\n          maxLength: 500\n`,
          '',
        ),
    });
    cpSync(join(root, 'spec'), join(root, 'base'), { recursive: true });
    const outcome = await check(root, versionChanges, 'base/openapi.yaml');
    expect(outcome.status).toBe('fail');
    const text = outcome.details.join('\n');
    expect(outcome.summary).toMatch(/^0 breaking/);
    for (const version of ['2026-11-01', '2026-12-01'])
      expect(text).toMatch(
        new RegExp(`FAIL breaks released ${version}: .*Appointment/properties/reason`),
      );
  });

  it('fails a released file whose version has no module any more', async () => {
    const outcome = await check(head('retired'), [versionChanges[1]!]);
    expect(outcome.status).toBe('fail');
    expect(outcome.details.join('\n')).toContain(
      'spec/released/2026-11-01.json: 2026-11-01 has no module in spec/versions/',
    );
  });

  it('says which released contracts it kept', async () => {
    const outcome = await check(head('kept'));
    expect(outcome.details).toContain(
      'released contracts (spec/released/): 2026-11-01, 2026-12-01 kept',
    );
  });
});
