import { createConfig, stringifyYaml } from '@redocly/openapi-core';

import type { OpenApiDocument } from '../../contract/openapi-document.js';
import { bundleFile, parseFile } from '../openapi/load.js';

/**
 * Resolves every `$ref` to another file (split schemas, `spec/guides/*.md` descriptions) into
 * one document, through the model's loader (tooling/openapi/load.ts). Internal `#/components`
 * refs stay. A `$ref` that does not resolve is an error: the docs would show a hole.
 *
 * Uses an empty Redocly config on purpose: linting is `npm run lint:spec`'s job, and the
 * project's lint plugins are not needed to serve the document.
 */
export async function bundleSpec(specPath: string): Promise<OpenApiDocument> {
  const config = await createConfig({});
  const { bundled, problems } = await bundleFile(await parseFile(specPath, config), config);
  const unresolved = problems.filter((problem) => problem.severity === 'error');
  const [first] = unresolved;
  if (first !== undefined) {
    const where = first.location[0]?.pointer ?? '';
    throw new Error(`cannot bundle ${specPath}: ${first.message} at ${where}`);
  }
  return bundled as OpenApiDocument;
}

/**
 * A copy of `doc` without parts that would make the docs load from another origin: today
 * `info.x-logo` with an absolute URL (Redoc draws it as an `<img>`). Returns what was dropped
 * so the build can say so.
 */
export function withoutRemoteAssets(doc: OpenApiDocument): {
  doc: OpenApiDocument;
  dropped: string[];
} {
  // The docs serve any bundled document: `info` may be missing, however the type reads.
  const info = doc.info as OpenApiDocument['info'] | undefined;
  const logo = info?.['x-logo'] as { url?: unknown } | undefined;
  if (info === undefined || typeof logo?.url !== 'string' || !/^(?:https?:)?\/\//i.test(logo.url)) {
    return { doc, dropped: [] };
  }
  const { 'x-logo': _dropped, ...rest } = info;
  return { doc: { ...doc, info: rest }, dropped: [`info.x-logo (${logo.url})`] };
}

/** `doc` as YAML text. */
export function toYaml(doc: OpenApiDocument): string {
  return stringifyYaml(doc, { noRefs: true, lineWidth: -1 });
}
