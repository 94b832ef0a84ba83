import { fileURLToPath } from 'node:url';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { stringify } from 'yaml';

/** The plugin entry `redocly.yaml` names, so the tests load the rules the way the CLI does. */
const PLUGIN = fileURLToPath(new URL('../../../tooling/lint-rules/plugin.js', import.meta.url));

/** A spec node in a test document. */
export type Doc = Record<string, unknown>;

/**
 * Lints `document` with one house rule alone (no other rule), in-process, and returns each
 * problem as `pointer: message`. `given → want` tests of a rule read like Redocly's own.
 * `options` are the rule's own, as `redocly.yaml` would give them beside `severity`.
 */
export async function lintWithRule(rule: string, document: Doc, options?: Doc): Promise<string[]> {
  const config = await createConfig({
    plugins: [PLUGIN],
    rules: { [`patient-care/${rule}`]: options ? { severity: 'error', ...options } : 'error' },
  });
  const problems = await lintFromString({
    source: stringify(document),
    absoluteRef: '/given/openapi.yaml',
    config,
  });
  return problems.map((p) => `${p.location[0]?.pointer}: ${p.message}`);
}

/** A small OpenAPI 3.0 document around `paths` (and optional `components`). */
export function openapi(paths: Doc, components: Doc = {}): Doc {
  return { openapi: '3.0.3', info: { title: 'given', version: '1' }, paths, components };
}
