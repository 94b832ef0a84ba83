import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runBreakingCheck } from '../../../tooling/spec-gate/breaking-step.js';
import { gitReader, worktreeReader } from '../../../tooling/spec-gate/git-base.js';
import { loadSpec } from '../../../tooling/spec-gate/load-spec.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = join(repoRoot, 'test/fixtures/spec-gate');
const tsx = join(repoRoot, 'node_modules/.bin/tsx');
const cli = join(repoRoot, 'scripts/spec-check.ts');
const EMAIL = 'schemas/patient.yaml#/Patient/properties/email';
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Spec Gate Test',
  GIT_AUTHOR_EMAIL: 'gate@example.invalid',
  GIT_COMMITTER_NAME: 'Spec Gate Test',
  GIT_COMMITTER_EMAIL: 'gate@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};
const temps: string[] = [];

function tempRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spec-gate-'));
  temps.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

function git(dir: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'commit.gpgsign=false', ...args], {
    cwd: dir,
    env: gitEnv,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function commitAll(dir: string, message: string) {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

function specCheck(dir: string, ...args: string[]) {
  return specCheckIn(dir, {}, ...args);
}

function specCheckIn(dir: string, env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(tsx, [cli, '--only', 'breaking', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, CI: '', ...env },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}`, stderr: r.stderr };
}

const initialChangelog = '# Changelog\n\n## 2026-11-01\n\n- First public version.\n';

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

// Each case starts `spec:check` as a process under tsx, one to three times: seconds each on a
// quiet machine, up to half a minute each when the two cores are busy.
describe('npm run spec:check against a temporary git repository', { timeout: 180_000 }, () => {
  it('uses the merge base with main, fails an unversioned break, passes once versioned and listed', () => {
    const dir = tempRepo();
    cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
    writeFileSync(join(dir, 'spec/CHANGELOG.md'), initialChangelog);
    commitAll(dir, 'first version');

    git(dir, 'checkout', '-q', '-b', 'feature');
    cpSync(join(fixtures, 'patient-without-email.yaml'), join(dir, 'spec/schemas/patient.yaml'));
    commitAll(dir, 'drop email');

    // main moves on after the branch point: a property added there must not count as removed
    // by the branch, which proves the base is the merge base and not main's tip.
    git(dir, 'checkout', '-q', 'main');
    const patient = join(dir, 'spec/schemas/patient.yaml');
    writeFileSync(patient, `${readFileSync(patient, 'utf8')}    nickname: { type: string }\n`);
    commitAll(dir, 'main adds nickname');
    git(dir, 'checkout', '-q', 'feature');

    const unversioned = specCheck(dir);
    expect(unversioned.code).toBe(1);
    expect(unversioned.out).toContain(`BREAKING property-removed ${EMAIL} (GET /v1/patients/{id})`);
    expect(unversioned.out).toContain('merge base with main');
    expect(unversioned.out).not.toContain('nickname');
    expect(unversioned.out).toMatch(/breaking +FAIL/);
    expect(unversioned.out).toContain('info.version is still 2026-11-01');

    const spec = join(dir, 'spec/openapi.yaml');
    writeFileSync(
      spec,
      readFileSync(spec, 'utf8').replace(/version: ['"]2026-11-01['"]/, 'version: "2026-12-01"'),
    );
    writeFileSync(
      join(dir, 'spec/CHANGELOG.md'),
      `# Changelog\n\n## 2026-12-01\n\n- Removed \`${EMAIL}\`.\n\n## 2026-11-01\n\n- First.\n`,
    );
    const versioned = specCheck(dir);
    expect(versioned.out).toContain(`breaking (listed) property-removed ${EMAIL}`);
    expect(versioned.out).toContain('spec:check passed');
    expect(versioned.code).toBe(0);
  });

  it('loads a split spec at a git revision as the working tree loads it, guides included', async () => {
    const dir = tempRepo();
    cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
    const spec = join(dir, 'spec/openapi.yaml');
    writeFileSync(
      spec,
      `${readFileSync(spec, 'utf8')}tags:\n  - { name: Patients, description: { $ref: ./guides/patients.md } }\n`,
    );
    mkdirSync(join(dir, 'spec/guides'));
    writeFileSync(join(dir, 'spec/guides/patients.md'), 'A *patient* is a person in care.\n');
    commitAll(dir, 'split spec with a guide');
    const rev = git(dir, 'rev-parse', 'HEAD').trim();
    const committed = await loadSpec('spec/openapi.yaml', { root: dir, read: worktreeReader(dir) });

    // The working tree moves on; the revision still reads as it was committed.
    cpSync(join(fixtures, 'patient-without-email.yaml'), join(dir, 'spec/schemas/patient.yaml'));
    rmSync(join(dir, 'spec/guides'), { recursive: true });
    const atRev = await loadSpec('spec/openapi.yaml', { root: dir, read: gitReader(dir, rev) });
    expect(atRev.document).toEqual(committed.document);
    expect((atRev.document.tags as { description: string }[])[0]?.description).toBe(
      'A *patient* is a person in care.\n',
    );
    const email = '/components/schemas/Patient/properties/email';
    expect(atRev.document).toHaveProperty(email.slice(1).split('/'));
    expect(atRev.show(email)).toBe(EMAIL);
    expect(atRev.show('/components/schemas/Patient/properties/linked/items')).toBe(
      'schemas/patient.yaml#/Patient/properties/linked/items',
    );

    // A file the revision lacks is named, relative to the repository.
    git(dir, 'rm', '-q', '-f', 'spec/schemas/patient.yaml');
    commitAll(dir, 'lose the schema file');
    const broken = gitReader(dir, git(dir, 'rev-parse', 'HEAD').trim());
    await expect(loadSpec('spec/openapi.yaml', { root: dir, read: broken })).rejects.toThrow(
      /^spec\/schemas\/patient\.yaml not found$/,
    );
  });

  it('passes and says so when the spec is absent at the base', () => {
    const dir = tempRepo();
    writeFileSync(join(dir, 'README.md'), 'x\n');
    commitAll(dir, 'empty project');
    git(dir, 'checkout', '-q', '-b', 'feature');
    cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
    commitAll(dir, 'add spec');
    const r = specCheck(dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/no base to compare with \(spec\/openapi\.yaml absent at merge base/);
  });

  it('compares with --base FILE and with HEAD~1 when run on main itself', async () => {
    const dir = tempRepo();
    cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
    commitAll(dir, 'v1');
    const opts = { root: dir, spec: 'spec/openapi.yaml', changelog: 'spec/CHANGELOG.md' };
    expect((await runBreakingCheck(opts)).summary).toMatch(
      /no base to compare with \(first commit\)/,
    );

    const baseCopy = join(dir, 'base');
    cpSync(join(dir, 'spec'), baseCopy, { recursive: true });
    cpSync(join(fixtures, 'patient-without-email.yaml'), join(dir, 'spec/schemas/patient.yaml'));
    // Uncommitted edit on main: compared with HEAD.
    const dirty = await runBreakingCheck(opts);
    expect(dirty.status).toBe('fail');
    expect(dirty.summary).toMatch(/vs HEAD \(.*\), uncommitted spec edits/);
    commitAll(dir, 'drop email');
    const onMain = await runBreakingCheck(opts);
    expect(onMain.summary).toMatch(
      /1 breaking, 0 compatible change\(s\) vs HEAD~1 \(.*\), as HEAD is main/,
    );
    const fromFile = await runBreakingCheck({ ...opts, baseFile: join(baseCopy, 'openapi.yaml') });
    expect(fromFile.status).toBe('fail');
    expect(fromFile.details.join('\n')).toContain(EMAIL);
  });

  it('fails closed: an unknown --base-ref or --base is exit 2 in one line, before any step', () => {
    const dir = tempRepo();
    cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
    commitAll(dir, 'v1');
    for (const [args, said] of [
      [['--base-ref', 'does-not-exist'], '--base-ref does-not-exist: not a commit'],
      [['--base-ref', 'mian'], '--base-ref mian: not a commit'],
      [['--base', 'no/such/openapi.yaml'], '--base no/such/openapi.yaml: no such file'],
    ] as const) {
      const r = specCheckIn(dir, {}, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toContain(said);
      expect(r.out).not.toContain('PASS');
    }
  });

  it('in CI (CI=true) a base that cannot be found fails; locally it only says so', () => {
    const dir = tempRepo();
    cpSync(join(fixtures, 'split'), join(dir, 'spec'), { recursive: true });
    commitAll(dir, 'v1');
    git(dir, 'checkout', '-q', '-b', 'feature');
    git(dir, 'branch', '-q', '-D', 'main');
    const local = specCheckIn(dir, {});
    expect(local.code).toBe(0);
    expect(local.out).toContain('no base to compare with (no main branch)');
    const ci = specCheckIn(dir, { CI: 'true' });
    expect(ci.code).toBe(1);
    expect(ci.out).toMatch(/breaking +FAIL +.*no base to compare with \(no main branch\)/);
    expect(ci.out).toContain('In CI the gate needs its base');
  });

  it('in CI, main in a shallow clone (no HEAD~1) fails; a real first commit does not', () => {
    const origin = tempRepo();
    cpSync(join(fixtures, 'split'), join(origin, 'spec'), { recursive: true });
    commitAll(origin, 'v1');
    writeFileSync(join(origin, 'README.md'), 'x\n');
    commitAll(origin, 'v2');
    const shallow = mkdtempSync(join(tmpdir(), 'spec-gate-shallow-'));
    temps.push(shallow);
    git(tmpdir(), 'clone', '-q', '--depth', '1', `file://${origin}`, shallow);
    const cut = specCheckIn(shallow, { CI: 'true' });
    expect(cut.code).toBe(1);
    expect(cut.out).toContain('HEAD~1 is not in this shallow clone');

    const first = tempRepo();
    cpSync(join(fixtures, 'split'), join(first, 'spec'), { recursive: true });
    commitAll(first, 'v1');
    const r = specCheckIn(first, { CI: 'true' });
    expect(r.code).toBe(0);
    expect(r.out).toContain('no base to compare with (first commit)');
  });
});
