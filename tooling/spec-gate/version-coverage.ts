/**
 * The coverage rule of dated versions (docs/design.md#versioning): a breaking change between
 * the base and the head passes only when a version-change module covers it, that is when the
 * document the head's modules derive for the base's version is non-breaking against the
 * base's own document. The head version's changelog section must also hold the module's
 * bullets, so they are written once, in the module.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { todosOf } from '../../contract/version-change.js';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { diffSpecs } from '../breaking/diff-specs.js';
import { parseChangelog } from './changelog.js';
import { breakingBeyondStatedBounds } from './stated-bounds.js';

/** Where a repository keeps its version-change modules (an `index.ts` exporting the list). */
export const VERSIONS_INDEX = 'spec/versions/index.ts';

/** The modules of the repository at `root`, or undefined when it has none. */
export async function loadVersionChanges(root: string): Promise<VersionChange[] | undefined> {
  const file = join(root, VERSIONS_INDEX);
  if (!existsSync(file)) return undefined;
  const loaded = (await import(pathToFileURL(file).href)) as { versionChanges?: VersionChange[] };
  return loaded.versionChanges;
}

/**
 * The section of `spec/CHANGELOG.md` for a module: its heading and its bullets, as the gate
 * expects to find them.
 */
export function changelogSection(change: VersionChange): string {
  return [`## ${change.date}`, '', ...change.changelog.map((line) => `- ${line}`), ''].join('\n');
}

export interface CoverageInput {
  changes: readonly VersionChange[];
  baseDocument: unknown;
  headDocument: unknown;
  baseVersion: unknown;
  headVersion: unknown;
  changelog: string | undefined;
}

/** One line per problem; empty when the modules cover the head. */
export function checkVersionCoverage(input: CoverageInput): string[] {
  const problems: string[] = [];
  let registry: ReturnType<typeof createRegistry>;
  try {
    registry = createRegistry(input.changes);
  } catch (error) {
    return [`${VERSIONS_INDEX}: ${(error as Error).message}`];
  }
  if (registry.latest !== input.headVersion) {
    problems.push(
      `info.version ${String(input.headVersion)} is not the newest version-change module (${registry.latest}): run \`npm run spec:version -- ${String(input.headVersion)}\` (it writes spec/versions/${String(input.headVersion)}.ts from the breaking changes)`,
    );
    return problems;
  }
  // createRegistry refuses an empty list, and `latest` is the first change's date.
  const [headChange] = registry.changes;
  if (headChange === undefined) return problems;
  for (const change of registry.changes) {
    for (const note of todosOf(change))
      problems.push(`spec/versions/${change.date}.ts: TODO left: ${note}`);
  }
  const bullets = [...(parseChangelog(input.changelog ?? '').get(headChange.date) ?? [])];
  const text = sectionText(input.changelog ?? '', headChange.date);
  const missing = headChange.changelog.filter((line) => !text.includes(`- ${line}`));
  if (missing.length > 0 || (headChange.changelog.length > 0 && bullets.length === 0)) {
    problems.push(
      `spec/CHANGELOG.md "## ${headChange.date}" must hold the bullets of spec/versions/${headChange.date}.ts as written there (${missing.length} missing); the section is:\n${changelogSection(headChange)}`,
    );
  }
  if (input.baseVersion === input.headVersion) return problems;
  if (typeof input.baseVersion !== 'string' || !registry.supported.includes(input.baseVersion)) {
    problems.push(
      `the base's version ${String(input.baseVersion)} has no module in spec/versions/: clients pinned to it would lose their contract`,
    );
    return problems;
  }
  let derived: unknown;
  try {
    derived = deriveDocument(input.headDocument, registry, input.baseVersion);
  } catch (error) {
    problems.push(`deriving ${input.baseVersion} from the head: ${(error as Error).message}`);
    return problems;
  }
  const uncovered = diffSpecs(
    input.baseDocument as OpenApiDocument,
    derived as OpenApiDocument,
  ).filter(breakingBeyondStatedBounds(input.headDocument, registry, input.baseVersion));
  if (uncovered.length > 0) {
    problems.push(
      `${uncovered.length} breaking change(s) not covered by a version change: the document derived for ${input.baseVersion} from the head differs from the base's. ${
        registry.latest === input.baseVersion
          ? 'Run `npm run spec:version -- YYYY-MM-DD` (a date after it): it writes the module, its registration, info.version and the changelog section'
          : `Describe each in spec/versions/${registry.latest}.ts (document edits and converters)`
      }:`,
      ...uncovered.map((c) => `  ${c.kind} ${c.pointer}: ${c.message}`),
    );
  }
  return problems;
}

/** The text under `## version` up to the next heading. */
function sectionText(changelog: string, version: string): string {
  const lines = changelog.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trim() === `## ${version}`);
  if (start < 0) return '';
  const end = lines.findIndex((line, i) => i > start && /^##\s/.test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}
