/** The service's versions: the registry built from `spec/versions/`, and its renderer. */
import { versionChanges } from '../../spec/versions/index.js';
import { createRegistry } from './registry.js';
import { createRenderer } from './render.js';

export { downgradeBody, downgradeText, upgradeRequest } from './convert.js';
export { deriveDocument } from './derive.js';
export type { VersionRegistry } from './registry.js';
export { createRenderer, type Renderer } from './render.js';

/** The registry of the spec's version changes. */
export const versions = createRegistry(versionChanges);

/** The spec's renderer: `renderIn(version, body)`, one rule for an unsupported version. */
export const renderer = createRenderer(versions);
export const renderIn = renderer.renderIn;
