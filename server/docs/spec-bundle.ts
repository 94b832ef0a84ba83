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
 * Returns a loader that bundles the spec once, on first use, and then answers from memory,
 * without remote assets (`onDropped` hears what was removed). A failed attempt is not cached,
 * so fixing the file and retrying works without a restart.
 */
export function cachedSpec(
  specPath: string,
  onDropped: (dropped: string[]) => void = () => {},
): () => Promise<OpenApiDocument> {
  let pending: Promise<OpenApiDocument> | undefined;
  const load = async () => {
    const { doc, dropped } = withoutRemoteAssets(await bundleSpec(specPath));
    if (dropped.length > 0) onDropped(dropped);
    return doc;
  };
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
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
  const info = doc.info as Record<string, unknown> | undefined;
  const logo = info?.['x-logo'] as { url?: unknown } | undefined;
  if (info === undefined || typeof logo?.url !== 'string' || !/^(?:https?:)?\/\//i.test(logo.url)) {
    return { doc, dropped: [] };
  }
  const { 'x-logo': _dropped, ...rest } = info;
  return { doc: { ...doc, info: rest }, dropped: [`info.x-logo (${logo.url})`] };
}

/** A copy of `doc` whose only server is `origin`, so consoles send requests back here. */
export function withServer(doc: OpenApiDocument, origin: string): OpenApiDocument {
  return { ...doc, servers: [{ url: origin, description: 'This service' }] };
}

/** `doc` as YAML text. */
export function toYaml(doc: OpenApiDocument): string {
  return stringifyYaml(doc, { noRefs: true, lineWidth: -1 });
}
