/** The service's versions: the registry built from `spec/versions/`. */
import { versionChanges } from '../../spec/versions/index.js';
import { createRegistry } from './registry.js';

export { downgradeBody, downgradeText, upgradeRequest } from './convert.js';
export { deriveDocument } from './derive.js';
export type { VersionRegistry } from './registry.js';

/** The registry of the spec's version changes. */
export const versions = createRegistry(versionChanges);
