/** The service's versions: the registry built from `spec/versions/`, and its renderer. */
import { versionChanges } from '../../spec/versions/index.js';
import { createRegistry } from './registry.js';
import { createRenderer } from './render.js';

export { downgradeBody, downgradeText, upgradeRequest } from './convert.js';
export { deriveDocument } from './derive.js';
export type { VersionRegistry } from './registry.js';
export { createRenderer, type Renderer } from './render.js';

import type { VersionChange } from './version-change.js';

/** The registry of the spec's version changes. */
export let versions = createRegistry(versionChanges);

/** The spec's renderer: `renderIn(version, body)`, one rule for an unsupported version. */
export let renderer = createRenderer(versions);
export let renderIn = renderer.renderIn;

/**
 * Serves `changes` from now on (live bindings: every importer sees the new registry). Only the
 * dev loop calls it, when a version module is added, edited or removed while it runs; a
 * production process keeps the modules it started with.
 */
export function useVersionChanges(changes: readonly VersionChange[]): void {
  versions = createRegistry(changes);
  renderer = createRenderer(versions);
  renderIn = renderer.renderIn;
}
