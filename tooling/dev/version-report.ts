/**
 * What the dev loop says about versions on each save: whether the served contract is breaking
 * against the latest released one (`spec/released/`), and what `npm run spec:version` would
 * write for it, in one line. The same plan as the command (`planVersion`), computed while the
 * regeneration worker runs, so a save takes no longer for it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenApiDocument } from '../../contract/openapi-document.js';
import type { VersionChange } from '../../contract/version-change.js';
import { deriveDocument } from '../../server/versioning/derive.js';
import { createRegistry } from '../../server/versioning/registry.js';
import { freshVersionChanges } from '../openapi/version-list.js';
import { readReleased, releasedVersions } from '../spec-gate/released.js';
import { describePlan, planVersion } from '../spec-gate/version-plan.js';

/**
 * A stamp of the version modules' files: part of a contract's identity in the loop, so a
 * module edited, added or removed is a new contract (served at once) even when the newest
 * document reads the same.
 */
export function versionModulesStamp(root: string): string {
  const dir = join(root, 'spec/versions');
  const hash = createHash('sha256');
  try {
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith('.ts')) continue;
      hash.update(name).update(String(statSync(join(dir, name)).mtimeMs));
    }
  } catch {
    // no modules: nothing to stamp
  }
  return hash.digest('base64url').slice(0, 12);
}

/** The latest released contract, read once per file. */
const releasedCache = new Map<string, OpenApiDocument>();

/** The save's one line about versions, or undefined when nothing is released to compare with. */
export async function versionLine(
  root: string,
  document: Record<string, unknown>,
  modules?: readonly VersionChange[],
): Promise<string | undefined> {
  const since = releasedVersions(root).at(-1);
  if (since === undefined) return undefined;
  const registry = createRegistry(
    modules ?? (await freshVersionChanges(join(root, 'spec/versions/index.ts'))),
  );
  if (!registry.supported.includes(since))
    return `✗ released ${since} has no module in spec/versions/`;
  const file = join(root, 'spec/released', `${since}.json`);
  const key = `${file}@${statSync(file).mtimeMs}`;
  let released = releasedCache.get(key);
  if (released === undefined) {
    released = readReleased(root, since);
    releasedCache.set(key, released);
  }
  const plan = planVersion(
    released,
    deriveDocument(document, registry, since) as unknown as OpenApiDocument,
  );
  if (plan.changes.length === 0) {
    const through =
      registry.latest === since ? '' : ` (through spec/versions/${registry.latest}.ts)`;
    return `✓ compatible with released ${since}${through}`;
  }
  const [first] = plan.changes;
  const more = plan.changes.length > 1 ? ` +${plan.changes.length - 1} more` : '';
  return `⚠ breaking vs released ${since}: ${first?.pointer}${more} · npm run spec:version -- <date> would write ${describePlan(plan)}`;
}
