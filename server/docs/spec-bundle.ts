import { bundle, createConfig, stringifyYaml } from '@redocly/openapi-core';

/** An OpenAPI document as plain JSON data. */
export type OpenApiDocument = Record<string, unknown> & { servers?: unknown };

/**
 * Resolves every `$ref` to another file (split schemas, `spec/guides/*.md` descriptions) into
 * one document, the way Redocly's `bundle` command does. Internal `#/components` refs stay.
 *
 * Uses an empty Redocly config on purpose: linting is `npm run lint:spec`'s job, and the
 * project's lint plugins are not needed to serve the document.
 */
export async function bundleSpec(specPath: string): Promise<OpenApiDocument> {
  const config = await createConfig({});
  const result = await bundle({ ref: specPath, config, dereference: false });
  const unresolved = result.problems.filter((problem) => problem.severity === 'error');
  if (unresolved.length > 0) {
    const first = unresolved[0]!;
    const where = first.location[0]?.pointer ?? '';
    throw new Error(`cannot bundle ${specPath}: ${first.message} at ${where}`);
  }
  return result.bundle.parsed as OpenApiDocument;
}

/**
 * Returns a loader that bundles the spec once, on first use, and then answers from memory.
 * A failed attempt is not cached, so fixing the file and retrying works without a restart.
 */
export function cachedSpec(specPath: string): () => Promise<OpenApiDocument> {
  let pending: Promise<OpenApiDocument> | undefined;
  return () => {
    pending ??= bundleSpec(specPath).catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** A copy of `doc` whose only server is `origin`, so consoles send requests back here. */
export function withServer(doc: OpenApiDocument, origin: string): OpenApiDocument {
  return { ...doc, servers: [{ url: origin, description: 'This service' }] };
}

/** `doc` as YAML text. */
export function toYaml(doc: OpenApiDocument): string {
  return stringifyYaml(doc, { noRefs: true, lineWidth: -1 });
}
