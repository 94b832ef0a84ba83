/**
 * The one type of an OpenAPI 3.0.x document (OpenAPI 3.0.3 §4.7.1) and of the HTTP methods a
 * Path Item holds (§4.7.9): the model reads documents of this type (`tooling/openapi/`), and the
 * server serves and derives them (`server/docs/`, `server/versioning/`), so it lives here, on the
 * ground both share. As the model reads it: already bundled, every `$ref` internal
 * (`#/components/...`).
 */

/** The parts of an OpenAPI 3.0 document the generators read; everything else passes through. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown> | undefined>;
  [key: string]: unknown;
}

/** The fixed fields of a Path Item that hold an Operation Object (§4.7.9), in this order. */
export const HTTP_METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
] as const;
export type LowerMethod = (typeof HTTP_METHODS)[number];
