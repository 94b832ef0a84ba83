import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { versions } from '../../server/versioning/index.js';
import { applyVersionLists } from '../../tooling/openapi/version-list.js';

/** Path of the hand-written spec, from this file's location (tests run from any cwd). */
export const SPEC_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));

/**
 * The spec as plain data, with its version lists filled from the modules as the bundler fills
 * them. One file, so no `$ref` across files needs resolving.
 */
export function loadSpec(): Record<string, unknown> {
  const document: unknown = parse(readFileSync(SPEC_PATH, 'utf8'));
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new Error(`${SPEC_PATH} does not hold a YAML mapping`);
  }
  applyVersionLists(document, versions.supported);
  return document as Record<string, unknown>;
}
