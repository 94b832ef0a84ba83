/**
 * A read's reply with its version as a weak ETag (`W/"{versionId}"`) and `Last-Modified`,
 * and `304` with no body when `If-None-Match` names that version (RFC 9110 §13.1.2: a list
 * of tags, compared weakly, or `*`). Cheap: the version is a digest of the stored object the
 * read has in hand anyway.
 */
import type { FhirMeta } from './mapping/common.js';

/** Whether `If-None-Match` names `etag` (weak comparison). */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** The ETag and Last-Modified headers of a resource. */
export function versionHeaders(meta: FhirMeta): { ETag: string; 'Last-Modified': string } {
  return {
    ETag: `W/"${meta.versionId}"`,
    'Last-Modified': new Date(meta.lastUpdated).toUTCString(),
  };
}

/** `200` with the resource, or `304` when the client already has this version. */
export function conditionalRead<R extends { meta: FhirMeta }>(
  resource: R,
  ifNoneMatch: string | undefined,
):
  | { status: 200; body: R; headers: Record<string, string> }
  | { status: 304; body: undefined; headers: Record<string, string> } {
  const headers = versionHeaders(resource.meta);
  if (matchesIfNoneMatch(ifNoneMatch, headers.ETag))
    return { status: 304, body: undefined, headers };
  return { status: 200, body: resource, headers };
}
