/**
 * Released contracts as files (docs/design.md#versioning): `spec/released/<date>.json` is the
 * bundled document (split files and guides resolved, as `bundleSpec` serves it) of a version as
 * it was released, written once by `npm run spec:release -- <date>` and never edited. The
 * version tests and the gate compare each supported version's derived document with its file,
 * so they need no git history (a shallow clone or a tarball runs them), and a released contract
 * cannot drift with the branch being compared.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import type { VersionChange } from '../../server/versioning/version-change.js';
import { diffSpecs } from '../breaking/diff-specs.js';
import type { Change } from '../breaking/types.js';
import { bundleSpec } from '../docs/spec-bundle.js';
import { breakingBeyondStatedBounds } from './stated-bounds.js';

/** The folder of released contracts, repository-relative. */
export const RELEASED_DIR = 'spec/released';

const DATED = /^\d{4}-\d{2}-\d{2}$/;

/** Where the contract of `version` is kept. */
export function releasedPath(root: string, version: string): string {
  return join(root, RELEASED_DIR, `${version}.json`);
}

/** The dates with a released contract in `root`, oldest first. */
export function releasedVersions(root: string): string[] {
  const dir = join(root, RELEASED_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json') && DATED.test(name.slice(0, -5)))
    .map((name) => name.slice(0, -5))
    .sort();
}

/**
 * The contract of `version` as released.
 * @throws Error naming the file when there is none or it is not JSON.
 */
export function readReleased(root: string, version: string): OpenApiDocument {
  const file = releasedPath(root, version);
  if (!existsSync(file)) throw new Error(`${RELEASED_DIR}/${version}.json: no such file`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
  } catch (error) {
    throw new Error(`${RELEASED_DIR}/${version}.json: ${(error as Error).message}`);
  }
}

/** The file's text: stable two-space JSON, one trailing newline, so a re-release diffs cleanly. */
function released(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

export interface ReleaseResult {
  file: string;
  /** `written` the first time; `unchanged` when the file already holds this contract. */
  outcome: 'written' | 'unchanged';
}

/**
 * Writes the released contract of `version` from the spec at `specPath` (its `info.version`
 * must be `version`: one releases what the spec is).
 * @throws Error when the spec is another version, or the version was released with a different
 *   contract (a released contract is never rewritten; ship a new date instead).
 */
export async function releaseContract(
  root: string,
  version: string,
  specPath: string,
): Promise<ReleaseResult> {
  if (!DATED.test(version)) throw new Error(`version ${version} is not YYYY-MM-DD`);
  const document = await bundleSpec(specPath);
  const specVersion = (document.info as { version?: unknown } | undefined)?.version;
  if (specVersion !== version)
    throw new Error(`${specPath} is info.version ${String(specVersion)}, not ${version}`);
  const file = releasedPath(root, version);
  const text = released(document);
  if (existsSync(file)) {
    if (readFileSync(file, 'utf8') === text) return { file, outcome: 'unchanged' };
    throw new Error(
      `${RELEASED_DIR}/${version}.json already holds a different contract; a released version is never rewritten (ship a new date)`,
    );
  }
  mkdirSync(join(root, RELEASED_DIR), { recursive: true });
  writeFileSync(file, text);
  return { file, outcome: 'written' };
}

export interface ReleasedCheck {
  /** One line per problem: a breaking change against a released contract, or a file with no module. */
  problems: string[];
  /** The versions compared. */
  checked: string[];
}

/**
 * Compares every released contract with the document the head's modules derive for its date:
 * anything breaking fails. A released file whose date has no module means the version was
 * removed; that is done by deleting the file too, after its sunset.
 */
export function checkReleased(
  root: string,
  head: OpenApiDocument,
  changes: readonly VersionChange[],
  describe: (change: Change) => string = (c) => `${c.kind} ${c.pointer}: ${c.message}`,
): ReleasedCheck {
  const registry = createRegistry(changes);
  const problems: string[] = [];
  const checked: string[] = [];
  for (const version of releasedVersions(root)) {
    if (!registry.supported.includes(version)) {
      problems.push(
        `${RELEASED_DIR}/${version}.json: ${version} has no module in spec/versions/ (removing a released version also removes its file, after its sunset)`,
      );
      continue;
    }
    const derived = deriveDocument(head, registry, version) as OpenApiDocument;
    checked.push(version);
    const breaking = breakingBeyondStatedBounds(head, registry, version);
    for (const change of diffSpecs(readReleased(root, version), derived)) {
      if (breaking(change)) problems.push(`breaks released ${version}: ${describe(change)}`);
    }
  }
  return { problems, checked };
}
