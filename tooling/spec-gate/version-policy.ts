import type { Change } from '../breaking/types.js';
import { isDatedVersion, isListed, parseChangelog } from './changelog.js';

export interface GateInput {
  changes: Change[];
  baseVersion: unknown;
  headVersion: unknown;
  /** Text of `spec/CHANGELOG.md` in the head, or undefined when it does not exist. */
  changelog: string | undefined;
  /** The change's pointer as the report shows it (`schemas/a.yaml#/A` for a split file); a
   * changelog entry may name either form. Default: the pointer. */
  show?: (change: Change) => string;
}

export interface GateResult {
  ok: boolean;
  /** One line per failure, saying how to fix it. */
  problems: string[];
  /** Breaking changes not named in the head version's changelog section. */
  unlisted: Change[];
}

/**
 * The versioning policy (docs/design.md#versioning): a breaking change lands only with
 * `info.version` moved to a newer dated version and the change listed under that version in
 * `spec/CHANGELOG.md`. A version move must always come with its changelog section.
 */
export function evaluateGate({
  changes,
  baseVersion,
  headVersion,
  changelog,
  show = (change) => change.pointer,
}: GateInput): GateResult {
  const breaking = changes.filter((c) => c.breaking);
  const problems: string[] = [];
  const moved = headVersion !== baseVersion;
  const sections = parseChangelog(changelog ?? '');
  const section = typeof headVersion === 'string' ? sections.get(headVersion) : undefined;
  if (moved) {
    if (!isDatedVersion(headVersion)) {
      problems.push(`info.version ${String(headVersion)} is not a dated version (YYYY-MM-DD)`);
    } else if (isDatedVersion(baseVersion) && headVersion < baseVersion) {
      problems.push(`info.version moved backwards: ${baseVersion} → ${headVersion}`);
    }
    if (!section) {
      problems.push(
        `info.version is now ${String(headVersion)} but spec/CHANGELOG.md has no "## ${String(headVersion)}" section`,
      );
    }
  }
  let unlisted: Change[] = [];
  if (breaking.length > 0) {
    if (!moved) {
      problems.push(
        `${breaking.length} breaking change(s) while info.version is still ${String(baseVersion)}: run \`npm run spec:version -- YYYY-MM-DD\` (a new date): it writes the version module, registers it, moves info.version and lists each change under that date in spec/CHANGELOG.md`,
      );
      unlisted = breaking;
    } else {
      unlisted = breaking.filter((c) => !isListed(c, section ?? [], show(c)));
      if (unlisted.length > 0) {
        problems.push(
          `${unlisted.length} breaking change(s) not listed under "## ${String(headVersion)}" in spec/CHANGELOG.md (name each JSON pointer or operation in backticks)`,
        );
      }
    }
  }
  return { ok: problems.length === 0, problems, unlisted };
}
