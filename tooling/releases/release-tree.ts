/**
 * Earlier commits of this repository as runnable trees: `git archive` into a folder, so the
 * files are exactly the commit's (never the working copy's edits). Benches run an old commit
 * beside this one on this checkout's node_modules (`extractCommit`); the upgrade tier runs a
 * release as its users ran it, with its own locked dependencies (`installedRelease`, cached
 * under ~/.cache/patient-care/releases: the first `npm ci` of a release takes about a minute).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where installed releases are kept between runs. */
export const RELEASE_CACHE = join(homedir(), '.cache', 'patient-care', 'releases');

/** The full hash of `commit`, or a one-line error saying to fetch history (a shallow clone). */
export function resolveCommit(root: string, commit: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone's history: fetch it (git fetch --unshallow, or a full clone)`,
    );
  }
}

/** `commit`'s files written into `dir` (created if missing). */
function archiveInto(root: string, commit: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', commit], {
    cwd: root,
    maxBuffer: 1 << 30,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
}

/**
 * `commit`'s tree in a new temporary folder (named `prefix…`) that borrows `root`'s
 * node_modules. The caller removes it.
 */
export function extractCommit(root: string, commit: string, prefix: string): string {
  const full = resolveCommit(root, commit);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  archiveInto(root, full, dir);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/**
 * `commit`'s tree with its own `npm ci`, from the cache when a previous run installed it.
 * Installed beside the cache entry and renamed into place, so a run stopped half-way or two
 * runs at once never leave a half-installed release behind.
 */
export function installedRelease(root: string, commit: string, cache = RELEASE_CACHE): string {
  const full = resolveCommit(root, commit);
  const dir = join(cache, full);
  if (existsSync(join(dir, '.installed'))) return dir;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `${full}.staging-`));
  try {
    archiveInto(root, full, staging);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: staging,
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 1 << 26,
    });
    writeFileSync(join(staging, '.installed'), `${new Date().toISOString()}\n`);
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another run installed it first: use theirs.
      if (!existsSync(join(dir, '.installed'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}
