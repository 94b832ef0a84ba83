/**
 * The OpenAPI 3.0 schema check (`validate-document.ts`) for people: each violation located as
 * `file:line:col` in the file they edit, and a file read, bundled and validated in one call.
 */
import type { Document } from '@redocly/openapi-core';
import type { DocumentError } from './errors.js';
import {
  LoadError,
  type Located,
  locateError,
  locateParseError,
  ParseError,
  readDocument,
} from './load.js';
import { SCHEMA_RULE, validateDocument } from './validate-document.js';

/** The violations of `validateDocument`, located in the root file a person edits. */
export function locateViolations(
  violations: readonly DocumentError[],
  root: Document,
  file: string,
  cwd: string,
): Located[] {
  return violations.map((violation) => ({
    ...locateError(violation, root, file, cwd),
    ruleId: SCHEMA_RULE,
  }));
}

/**
 * `file` (and the files it `$ref`s) read, bundled and validated: every violation located as
 * `file:line:col`, or the one reason it could not be read (not YAML, not OpenAPI 3.0). Empty
 * when valid. `npm run lint:spec` and the spec gate read a file; generate and the dev loop
 * validate the document they already loaded.
 */
export async function validateFile(file: string, cwd: string): Promise<Located[]> {
  try {
    const { bundled, root } = await readDocument(file);
    return locateViolations(await validateDocument(bundled), root, file, cwd);
  } catch (error) {
    if (error instanceof ParseError) return [locateParseError(error.cause, file, cwd)];
    if (error instanceof LoadError) return [locateError(error.error, error.root, file, cwd)];
    throw error;
  }
}
