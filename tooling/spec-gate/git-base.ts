import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ReadText } from '../openapi/load.js';

function git(root: string, args: string[]): string | undefined {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return r.status === 0 ? r.stdout : undefined;
}

export interface BaseRevision {
  /** Commit to compare against, or undefined when there is none. */
  rev: string | undefined;
  /** How it was chosen, for the report. */
  note: string;
  /**
   * True when a base should exist but was not found (no main branch, no merge base, a shallow
   * clone's cut-off history, a `--base-ref` that names no commit). The gate fails closed on it
   * in CI; a new repository's first commit is not missing anything.
   */
  missing?: boolean;
}

/** Whether `rev` names a commit in the repository at `root`. */
export function isCommit(root: string, rev: string): boolean {
  return git(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]) !== undefined;
}

/**
 * Picks the base commit: `--base-ref` when given; else `git merge-base HEAD main` (or
 * `origin/main`). On `main` itself the merge base is HEAD, so the base becomes HEAD when the
 * working tree has uncommitted spec edits (checking them before commit), otherwise HEAD's
 * parent (checking the last commit only: a CI run on main that must cover several new commits
 * passes `--base-ref <last checked commit>`).
 */
export function resolveBaseRevision(root: string, specDir: string, baseRef?: string): BaseRevision {
  if (baseRef) {
    const rev = git(root, ['rev-parse', '--verify', `${baseRef}^{commit}`])?.trim();
    return rev
      ? { rev, note: `--base-ref ${baseRef}` }
      : { rev: undefined, note: `--base-ref ${baseRef} is not a commit`, missing: true };
  }
  const head = git(root, ['rev-parse', '--verify', 'HEAD'])?.trim();
  if (!head) return { rev: undefined, note: 'no commit yet' };
  const branch = ['main', 'origin/main'].find((b) => git(root, ['rev-parse', '--verify', b]));
  if (!branch) return { rev: undefined, note: 'no main branch', missing: true };
  const mergeBase = git(root, ['merge-base', 'HEAD', branch])?.trim();
  if (!mergeBase) return { rev: undefined, note: `no merge base with ${branch}`, missing: true };
  if (mergeBase !== head)
    return { rev: mergeBase, note: `merge base with ${branch} (${mergeBase.slice(0, 10)})` };
  const dirty = git(root, ['status', '--porcelain', '--', specDir])?.trim();
  if (dirty) return { rev: head, note: `HEAD (${head.slice(0, 10)}), uncommitted spec edits` };
  const parent = git(root, ['rev-parse', '--verify', 'HEAD~1'])?.trim();
  if (parent) return { rev: parent, note: `HEAD~1 (${parent.slice(0, 10)}), as HEAD is ${branch}` };
  // A shallow clone cuts history off: HEAD looks parentless without being the first commit.
  return git(root, ['rev-parse', '--is-shallow-repository'])?.trim() === 'true'
    ? { rev: undefined, note: 'HEAD~1 is not in this shallow clone', missing: true }
    : { rev: undefined, note: 'first commit' };
}

/** Reads repository files as they were at `rev` (`git show rev:path`). */
export function gitReader(root: string, rev: string): ReadText {
  return (path) => git(root, ['show', `${rev}:${path}`]);
}

/** Reads repository files from the working tree. */
export function worktreeReader(root: string): ReadText {
  return (path) => {
    const file = join(root, path);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
}

/**
 * What is wrong with `--base FILE` / `--base-ref REV` before anything runs, in one line (the
 * command's usage error, exit 2), or undefined. A typo must not turn the gate into a pass.
 */
export function baseArgumentProblem(opts: {
  root: string;
  baseFile?: string | undefined;
  baseRef?: string | undefined;
}): string | undefined {
  if (opts.baseFile !== undefined) {
    const file = isAbsolute(opts.baseFile) ? opts.baseFile : join(opts.root, opts.baseFile);
    if (!existsSync(file)) return `--base ${opts.baseFile}: no such file`;
  }
  if (opts.baseRef !== undefined && !isCommit(opts.root, opts.baseRef))
    return `--base-ref ${opts.baseRef}: not a commit in this repository`;
  return undefined;
}
