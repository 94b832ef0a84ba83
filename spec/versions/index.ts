/**
 * Every version-change module, one per date (the file is named by its date). A test checks
 * that this list holds exactly the files of this folder, so the modules are the one list.
 */
import { change as v2026_11_01 } from './2026-11-01.js';
import { change as v2026_12_01 } from './2026-12-01.js';

export const versionChanges = [v2026_11_01, v2026_12_01];
