/**
 * Media Type Objects (OpenAPI 3.0.3 §4.7.14) of a `content` map, and which one the generators
 * describe: JSON when there is one.
 * @see https://spec.openapis.org/oas/v3.0.3#media-type-object
 */

import { appendPointer } from '../../contract/pointer.js';
import { isObject, type NodeAt } from './document.js';

/** One Media Type Object (§4.7.14) of a body or response. */
export interface MediaModel {
  mediaType: string;
  schema: unknown;
}

/** Picks the media type generators describe: `application/json`, then any JSON, then the first. */
export function pickMedia(content: unknown): MediaModel | null {
  return chooseMedia(listMedia(content));
}

/** `pickMedia` over media types already listed. */
export function chooseMedia<T extends { mediaType: string }>(all: readonly T[]): T | null {
  return (
    all.find((media) => media.mediaType === 'application/json') ??
    all.find((media) => isJsonMediaType(media.mediaType)) ??
    all[0] ??
    null
  );
}

/** Every Media Type Object of a `content` map, in document order. */
export function listMedia(content: unknown): MediaModel[] {
  return [...readContent({ node: content, pointer: '' }).values()].map(({ mediaType, schema }) => ({
    mediaType,
    schema: schema.node,
  }));
}

/** A Media Type Object with where it sits, as the path-item reader hands it over. */
export interface MediaAt {
  mediaType: string;
  /** `<content pointer>/<media type>`. */
  pointer: string;
  /** Its `schema` as written (a `$ref` not followed) and the pointer of that key. */
  schema: NodeAt;
}

/**
 * The media types of a `content` map by name, in document order, each with its pointer; none
 * when `content` is not an object. A media type that is not an object has no schema.
 */
export function readContent(content: NodeAt): Map<string, MediaAt> {
  const out = new Map<string, MediaAt>();
  if (!isObject(content.node)) return out;
  for (const [mediaType, media] of Object.entries(content.node)) {
    const pointer = appendPointer(content.pointer, mediaType);
    out.set(mediaType, {
      mediaType,
      pointer,
      schema: {
        node: isObject(media) ? media.schema : undefined,
        pointer: appendPointer(pointer, 'schema'),
      },
    });
  }
  return out;
}

/** `application/json`, `application/problem+json`, `application/json; charset=utf-8`. */
export function isJsonMediaType(mediaType: string): boolean {
  const base = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return base === 'application/json' || base.endsWith('+json') || base.endsWith('/json');
}
