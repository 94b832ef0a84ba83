import { basename, dirname, isAbsolute, join } from 'node:path';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { diffSpecs } from '../breaking/diff-specs.js';
import type { Change } from '../breaking/types.js';
import { staleMentions } from './current-version.js';
import { gitReader, resolveBaseRevision, worktreeReader } from './git-base.js';
import { type LoadedSpec, loadSpec, showPointer } from './load-spec.js';
import { checkReleased, RELEASED_DIR } from './released.js';
import type { StepOutcome } from './step-types.js';
import { checkVersionCoverage, loadVersionChanges } from './version-coverage.js';
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
  /**
   * Fail, not pass, when the base cannot be found (CI: a shallow clone or a missing `main`
   * must not switch the gate off). Locally a missing base only says so.
   */
  requireBase?: boolean;
  /**
   * The version-change modules to check coverage with; default those of `root`
   * (`spec/versions/index.ts`), none when it has none (the rule is then skipped).
   */
  versionChanges?: readonly VersionChange[];
}

async function loadBase(
  opts: BreakingOptions,
): Promise<{ spec?: LoadedSpec; note: string; missing?: boolean }> {
  if (opts.baseFile) {
    const file = isAbsolute(opts.baseFile) ? opts.baseFile : join(opts.root, opts.baseFile);
    const source = { root: dirname(file), read: worktreeReader(dirname(file)) };
    return { spec: await loadSpec(basename(file), source), note: `--base ${opts.baseFile}` };
  }
  const base = resolveBaseRevision(opts.root, dirname(opts.spec), opts.baseRef);
  if (!base.rev) return { note: base.note, missing: base.missing };
  const read = gitReader(opts.root, base.rev);
  if (read(opts.spec) === undefined) return { note: `${opts.spec} absent at ${base.note}` };
  return { spec: await loadSpec(opts.spec, { root: opts.root, read }), note: base.note };
}

/** Where a change shows: its operation, or every operation a shared component reaches. */
function reached(change: Change): string {
  const ops = change.operations ?? (change.operation ? [change.operation] : []);
  if (ops.length === 0) return '';
  return ops.length === 1 ? ` (${ops[0]})` : ` (${ops.length} operations: ${ops.join(', ')})`;
}

function line(change: Change, shown: string, tag: string): string {
  return `${tag} ${change.kind} ${shown}${reached(change)}: ${change.message}`;
}

/**
 * The breaking-change step: diff the head spec against the base and apply the version and
 * changelog gate; check every released contract (spec/released/) still holds. Never throws: an unreadable spec is a failed step with the reason.
 */
export async function runBreakingCheck(opts: BreakingOptions): Promise<StepOutcome> {
  let head: LoadedSpec;
  let base: Awaited<ReturnType<typeof loadBase>>;
  try {
    head = await loadSpec(opts.spec, { root: opts.root, read: worktreeReader(opts.root) });
    base = await loadBase(opts);
  } catch (err) {
    return { status: 'fail', summary: 'cannot read a spec', details: [(err as Error).message] };
  }
  let modules: readonly VersionChange[] | undefined;
  try {
    modules = opts.versionChanges ?? (await loadVersionChanges(opts.root));
  } catch (err) {
    return {
      status: 'fail',
      summary: 'cannot load spec/versions/',
      details: [(err as Error).message],
    };
  }
  // Every released contract against what the head derives for its date: history-free, so it
  // holds in a shallow clone too, and a base branch that already drifted cannot hide a break.
  let released: ReturnType<typeof checkReleased> = { problems: [], checked: [] };
  if (modules !== undefined) {
    try {
      released = checkReleased(opts.root, head.document, modules, (c) =>
        line(c, head.show(c.pointer), 'BREAKING').slice('BREAKING '.length),
      );
    } catch (err) {
      released = { problems: [(err as Error).message], checked: [] };
    }
  }
  const releasedLines = [
    ...released.problems.map((p) => `FAIL ${p}`),
    ...(released.checked.length === 0
      ? []
      : [`released contracts (${RELEASED_DIR}/): ${released.checked.join(', ')} kept`]),
  ];
  const baseSpec = base.spec;
  if (!baseSpec) {
    const failed = base.missing === true && opts.requireBase === true;
    return {
      status: failed || released.problems.length > 0 ? 'fail' : 'pass',
      summary: `no base to compare with (${base.note})`,
      details: [
        ...(failed
          ? [
              'In CI the gate needs its base: fetch main (e.g. `git fetch origin main`, or clone with more history) or pass --base-ref REV / --base FILE.',
            ]
          : []),
        ...releasedLines,
      ],
    };
  }
  const changes = diffSpecs(baseSpec.document, head.document);
  const shown = new Map(changes.map((c) => [c, showPointer(c.pointer, head, baseSpec)]));
  const headVersion = (head.document.info as Record<string, unknown> | undefined)?.version;
  const baseVersion = (baseSpec.document.info as Record<string, unknown> | undefined)?.version;
  const gate = evaluateGate({
    changes,
    baseVersion,
    headVersion,
    changelog: worktreeReader(opts.root)(opts.changelog),
    show: (c) => shown.get(c) ?? c.pointer,
  });
  const breaking = changes.filter((c) => c.breaking);
  const coverage =
    modules === undefined
      ? []
      : checkVersionCoverage({
          changes: modules,
          baseDocument: baseSpec.document,
          headDocument: head.document,
          baseVersion,
          headVersion,
          changelog: worktreeReader(opts.root)(opts.changelog),
        });
  // "The current version" in prose has one source: info.version.
  const stale = typeof headVersion === 'string' ? staleMentions(opts.root, headVersion) : [];
  const ok =
    gate.ok && coverage.length === 0 && released.problems.length === 0 && stale.length === 0;
  const details = [
    `base: ${base.note}; info.version ${String(baseVersion)} → ${String(headVersion)}`,
    ...breaking.map((c) =>
      line(
        c,
        shown.get(c) ?? c.pointer,
        gate.unlisted.includes(c) ? 'BREAKING' : 'breaking (listed)',
      ),
    ),
    ...(opts.verbose
      ? changes.filter((c) => !c.breaking).map((c) => line(c, shown.get(c) ?? c.pointer, 'ok'))
      : []),
    ...gate.problems.map((p) => `FAIL ${p}`),
    ...coverage.map((p) => (p.startsWith('  ') ? p : `FAIL ${p}`)),
    ...stale.map((p) => `FAIL ${p}`),
    ...(modules === undefined ? [] : [`version changes: ${modules.length} module(s) checked`]),
    ...releasedLines,
  ];
  const summary = `${breaking.length} breaking, ${changes.length - breaking.length} compatible change(s) vs ${base.note}`;
  return { status: ok ? 'pass' : 'fail', summary, details };
}
