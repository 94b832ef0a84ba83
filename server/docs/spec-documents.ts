import { deriveDocument, versions } from '../versioning/index.js';
import type { JsonObject } from '../versioning/version-change.js';
import { type Asset, makeAsset } from './assets.js';
import { explorerSpec } from './explorer-spec.js';
import type { PreparedDocs } from './prepared.js';
import { referenceSpec } from './reference-spec.js';

/** The spec as served: `/openapi.json` and `/openapi.yaml`, bytes made once. */
export interface SpecDocuments {
  readonly json: Asset;
  readonly yaml: Asset;
  /** What `/docs/explorer` loads: the same spec, shaped for RapiDoc (`explorer-spec.ts`). */
  readonly explorer: Asset;
  /** What `/docs` (Redoc) loads: the same spec, shaped for the reference (`reference-spec.ts`). */
  readonly reference: Asset;
}

/**
 * The one server the served spec advertises: the configured public URL, or `/`, which OpenAPI
 * resolves against wherever the document was fetched. Never a request header: a `Host` sent by
 * a client must not decide where other people's consoles send their keys.
 */
export function advertisedServer(publicUrl: string | undefined): {
  url: string;
  description: string;
} {
  return publicUrl === undefined
    ? { url: '/', description: 'This service (relative to where this document was loaded)' }
    : { url: publicUrl, description: 'This service' };
}

/**
 * Serialises the prepared spec once with its server. YAML: a JSON string is a valid YAML
 * double-quoted scalar, so the `servers` block is appended as text to the prepared YAML (a
 * top-level mapping) with no YAML library at run time.
 */
export function specDocuments(docs: PreparedDocs, publicUrl: string | undefined): SpecDocuments {
  const server = advertisedServer(publicUrl);
  const json = JSON.stringify({ ...docs.spec, servers: [server] });
  const yaml = `${docs.specYaml.replace(/\n*$/, '\n')}servers:\n  - url: ${JSON.stringify(server.url)}\n    description: ${JSON.stringify(server.description)}\n`;
  const explorer = JSON.stringify({ ...explorerSpec(docs.spec), servers: [server] });
  const reference = JSON.stringify({ ...referenceSpec(docs.spec), servers: [server] });
  return {
    json: makeAsset('application/json; charset=utf-8', Buffer.from(json)),
    explorer: makeAsset('application/json; charset=utf-8', Buffer.from(explorer)),
    reference: makeAsset('application/json; charset=utf-8', Buffer.from(reference)),
    yaml: makeAsset('application/yaml; charset=utf-8', Buffer.from(yaml)),
  };
}

/**
 * A deprecated version's document says so first thing in `info.description` (what Redoc shows
 * on top), with the dates its answers' `Deprecation` and `Sunset` headers carry.
 */
function withRetirementNotice(document: JsonObject, version: string): JsonObject {
  const retiring = versions.changes.find((c) => c.date === version)?.deprecated;
  if (retiring === undefined) return document;
  const info = (document.info ?? {}) as JsonObject;
  const notice = `**Version ${version} is deprecated** (since ${retiring.since}) and is expected to stop being served on ${retiring.sunset}, when requests pinned to it will be refused. Its answers carry \`Deprecation\` and \`Sunset\` headers. Move to ${versions.latest}; see the Versioning guide.`;
  const was = typeof info.description === 'string' ? `\n\n${info.description}` : '';
  return { ...document, info: { ...info, description: `${notice}${was}` } };
}

/**
 * An older version's documents, derived from the prepared latest one. The YAML is the JSON
 * text: JSON is YAML 1.2 (flow style), and the service carries no YAML library at run time.
 */
export function versionedDocuments(
  docs: PreparedDocs,
  version: string,
  publicUrl: string | undefined,
): SpecDocuments {
  const derived = withRetirementNotice(deriveDocument(docs.spec, versions, version), version);
  const server = advertisedServer(publicUrl);
  const json = JSON.stringify({ ...derived, servers: [server] });
  const explorer = JSON.stringify({ ...explorerSpec(derived), servers: [server] });
  const reference = JSON.stringify({ ...referenceSpec(derived), servers: [server] });
  return {
    json: makeAsset('application/json; charset=utf-8', Buffer.from(json)),
    explorer: makeAsset('application/json; charset=utf-8', Buffer.from(explorer)),
    reference: makeAsset('application/json; charset=utf-8', Buffer.from(reference)),
    yaml: makeAsset('application/yaml; charset=utf-8', Buffer.from(`${json}\n`)),
  };
}
