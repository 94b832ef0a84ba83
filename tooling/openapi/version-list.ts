/**
 * The dated versions a document lists, filled in when it is bundled. A document whose `info`
 * has `x-versions` (our spec: `x-versions: spec/versions/`) has its version enums
 * (`VERSION_LIST_POINTERS`: the `ApiVersion` schema and the `PatientCare-Version` header and
 * parameter) written from this repository's modules (`spec/versions/index.ts`): every date up
 * to the document's own `info.version`, oldest first. So the modules are the one list: nobody
 * types a date into the document, and a base revision of the spec (read out of git or a copy)
 * lists exactly the versions up to its own. The marker is removed: the bundled document is
 * what is served and generated from.
 *
 * The modules are imported again when the index file changes (its modification time keys the
 * import), so a long-lived process (the dev loop) sees a module added or removed.
 */
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fillVersionLists, type VersionChange } from '../../contract/version-change.js';

/** This repository's module list, for a document whose own is not on the disk. */
const OWN_MODULES = resolve(import.meta.dirname, '../../spec/versions/index.ts');

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A module's URL keyed by its modification time, so an edited file is imported afresh. */
function stamped(file: string): string {
  // No dot in the query: vitest's transform took `.6394` of a fractional mtime for the file's
  // extension and parsed the module as JavaScript (every test bundling the spec failed).
  const stamp = String(statSync(file).mtimeMs).replace('.', '_');
  return `${pathToFileURL(file).href}?mtime=${stamp}`;
}

/**
 * The modules listed by the index file at `file` (default this repository's) as they are on
 * disk now: the index and each `DATE.ts` beside it are imported again when their file changed,
 * so a long-lived process (the dev loop) sees a module added, edited or removed. A module
 * imports only `contract/`, which does not change while it runs.
 */
export async function freshVersionChanges(file = OWN_MODULES): Promise<VersionChange[]> {
  const index = (await import(stamped(file))) as { versionChanges?: VersionChange[] };
  if (!Array.isArray(index.versionChanges))
    throw new Error(`${file} exports no versionChanges list`);
  return Promise.all(
    index.versionChanges.map(async ({ date }) => {
      const module = join(dirname(file), `${date}.ts`);
      return ((await import(stamped(module))) as { change: VersionChange }).change;
    }),
  );
}

/** The dates of the modules listed by the index file at `file` (`versionChanges`). */
export async function moduleDates(file: string): Promise<string[]> {
  const module = (await import(stamped(file))) as {
    versionChanges?: ReadonlyArray<{ date: string }>;
  };
  if (!Array.isArray(module.versionChanges)) {
    throw new Error(`${file} exports no versionChanges list`);
  }
  return module.versionChanges.map((change) => change.date).sort();
}

/**
 * Fills the version lists of a document that asks for them (`info.x-versions`) from `dates`,
 * and removes the marker; other documents are left alone. Returns whether it asked.
 */
export function applyVersionLists(document: unknown, dates: readonly string[]): boolean {
  if (!isNode(document) || !isNode(document.info)) return false;
  if (!('x-versions' in document.info)) return false;
  delete document.info['x-versions'];
  fillVersionLists(document, dates);
  return true;
}

/** `applyVersionLists` with this repository's modules as they are on disk now. */
export async function withVersionLists(document: unknown): Promise<void> {
  if (!isNode(document) || !isNode(document.info) || !('x-versions' in document.info)) return;
  applyVersionLists(document, await moduleDates(OWN_MODULES));
}
