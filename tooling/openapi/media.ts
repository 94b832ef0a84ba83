/**
 * Media Type Objects (OpenAPI 3.0.3 §4.7.14) of a `content` map, and which one the generators
 * describe: JSON when there is one.
 * @see https://spec.openapis.org/oas/v3.0.3#media-type-object
 */

/** One Media Type Object (§4.7.14) of a body or response. */
export interface MediaModel {
  mediaType: string;
  schema: unknown;
}

/** Picks the media type generators describe: `application/json`, then any JSON, then the first. */
export function pickMedia(content: unknown): MediaModel | null {
  const all = listMedia(content);
  return (
    all.find((media) => media.mediaType === 'application/json') ??
    all.find((media) => isJsonMediaType(media.mediaType)) ??
    all[0] ??
    null
  );
}

/** Every Media Type Object of a `content` map, in document order. */
export function listMedia(content: unknown): MediaModel[] {
  if (content === null || typeof content !== 'object') return [];
  return Object.entries(content as Record<string, unknown>).map(([mediaType, media]) => ({
    mediaType,
    schema:
      media !== null && typeof media === 'object'
        ? (media as Record<string, unknown>).schema
        : undefined,
  }));
}

/** `application/json`, `application/problem+json`, `application/json; charset=utf-8`. */
export function isJsonMediaType(mediaType: string): boolean {
  const base = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return base === 'application/json' || base.endsWith('+json') || base.endsWith('/json');
}
