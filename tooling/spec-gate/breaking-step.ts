import { basename, dirname, isAbsolute, join } from 'node:path';
import { diffSpecs } from '../breaking/diff-specs.js';
import type { Change, OpenApiDocument } from '../breaking/types.js';
import { gitReader, resolveBaseRevision, worktreeReader } from './git-base.js';
import { displayPointer, loadSpec } from './load-spec.js';
import type { StepOutcome } from './step-types.js';
import { evaluateGate } from './version-policy.js';

export interface BreakingOptions {
  /** Repository root (the git work tree). */
  root: string;
  /** Spec entry file, repository-relative POSIX path. */
  spec: string;
  /** Changelog, repository-relative. */
  changelog: string;
  /** Compare with this file instead of a git revision. */
  baseFile?: string;
  /** Compare with the spec at this git revision instead of the merge base. */
  baseRef?: string;
  /** Also list non-breaking changes. */
  verbose?: boolean;
}

function loadBase(opts: BreakingOptions): { doc?: OpenApiDocument; note: string } {
  if (opts.baseFile) {
    const file = isAbsolute(opts.baseFile) ? opts.baseFile : join(opts.root, opts.baseFile);
    const read = worktreeReader(dirname(file));
    return { doc: loadSpec(basename(file), read), note: `--base ${opts.baseFile}` };
  }
  const base = resolveBaseRevision(opts.root, dirname(opts.spec), opts.baseRef);
  if (!base.rev) return { note: base.note };
  const read = gitReader(opts.root, base.rev);
  if (read(opts.spec) === undefined) return { note: `${opts.spec} absent at ${base.note}` };
  return { doc: loadSpec(opts.spec, read), note: base.note };
}

/** Where a change shows: its operation, or every operation a shared component reaches. */
function reached(change: Change): string {
  const ops = change.operations ?? (change.operation ? [change.operation] : []);
  if (ops.length === 0) return '';
  return ops.length === 1 ? ` (${ops[0]})` : ` (${ops.length} operations: ${ops.join(', ')})`;
}

function line(change: Change, tag: string): string {
  const where = reached(change);
  return `${tag} ${change.kind} ${displayPointer(change.pointer)}${where}: ${change.message}`;
}

/**
 * The breaking-change step: diff the head spec against the base and apply the version and
 * changelog gate. Never throws: an unreadable spec is a failed step with the reason.
 */
export function runBreakingCheck(opts: BreakingOptions): StepOutcome {
  let head: OpenApiDocument;
  let base: { doc?: OpenApiDocument; note: string };
  try {
    head = loadSpec(opts.spec, worktreeReader(opts.root));
    base = loadBase(opts);
  } catch (err) {
    return { status: 'fail', summary: 'cannot read a spec', details: [(err as Error).message] };
  }
  if (!base.doc) {
    return { status: 'pass', summary: `no base to compare with (${base.note})`, details: [] };
  }
  const changes = diffSpecs(base.doc, head);
  const headVersion = (head.info as Record<string, unknown> | undefined)?.version;
  const baseVersion = (base.doc.info as Record<string, unknown> | undefined)?.version;
  const gate = evaluateGate({
    changes,
    baseVersion,
    headVersion,
    changelog: worktreeReader(opts.root)(opts.changelog),
  });
  const breaking = changes.filter((c) => c.breaking);
  const details = [
    `base: ${base.note}; info.version ${String(baseVersion)} → ${String(headVersion)}`,
    ...breaking.map((c) => line(c, gate.unlisted.includes(c) ? 'BREAKING' : 'breaking (listed)')),
    ...(opts.verbose ? changes.filter((c) => !c.breaking).map((c) => line(c, 'ok')) : []),
    ...gate.problems.map((p) => `FAIL ${p}`),
  ];
  const summary = `${breaking.length} breaking, ${changes.length - breaking.length} compatible change(s) vs ${base.note}`;
  return { status: gate.ok ? 'pass' : 'fail', summary, details };
}
