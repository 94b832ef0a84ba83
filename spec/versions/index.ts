/**
 * Every version-change module, one per date (the file is named by its date). A test checks
 * that this list holds exactly the files of this folder, so the modules are the one list.
 */
import { change as v2026_11_01 } from './2026-11-01.js';
import { change as v2026_12_01 } from './2026-12-01.js';

// No type syntax in this file: tooling/openapi/version-list.ts imports it with a cache-busting
// query, which vitest's transform reads as plain JavaScript.
export const versionChanges = [v2026_11_01, v2026_12_01];
