/**
 * `types.ts`: TypeScript types for the whole document (`paths`, `components`, `operations`),
 * made by openapi-typescript from the Paths Object (OpenAPI 3.0.3 §4.7.8), the Components
 * Object (§4.7.7) and every Operation Object with an `operationId` (§4.7.10).
 *
 * `readWriteMarkers` wraps readOnly properties in `$Read<T>` and writeOnly ones in `$Write<T>`
 * (Schema Object §4.7.24 readOnly/writeOnly) and emits the `Readable<T>`/`Writable<T>` helpers:
 * openapi-fetch applies `Writable` to request bodies and `Readable` to response data, and
 * `generated/routes.ts` does the same for handlers, so a request type has no readOnly field and
 * a response type has no writeOnly one. `format: date` and `date-time` stay `string` (the
 * library's default; a Date would shift birth dates by time zone).
 *
 * The document is already linted and bundled, so this calls openapi-typescript's `transformSchema`
 * directly instead of `openapiTS()`, which would lint and bundle the whole document a second
 * time (about 2 s on GitHub's document).
 */
import { createRequire } from 'node:module';
import type * as OpenApiTypescript from 'openapi-typescript';
import type { GlobalContext, OpenAPI3 } from 'openapi-typescript';
import type { OpenApiDocument } from '../contract/openapi-document.js';
import { inlinePathReferences } from '../tooling/openapi/inline-path-refs.js';

/**
 * openapi-typescript's CommonJS build, part by part. Its package root also loads its own Redocly
 * 1.x at import time (this module never uses it), and importing its ESM build makes Node run the
 * CommonJS export scanner over TypeScript's 9 MB compiler under the tsx loader: together about a
 * second and 80 MB on every `npm run generate`. The version is pinned exactly; the generator
 * tests exercise these three entry points.
 */
const require = createRequire(import.meta.url);
const transformSchema: typeof OpenApiTypescript.transformSchema = require('openapi-typescript/dist/transform/index.cjs');
const {
  resolveRef,
  scanDiscriminators,
}: typeof OpenApiTypescript = require('openapi-typescript/dist/lib/utils.cjs');
const { astToString }: typeof OpenApiTypescript = require('openapi-typescript/dist/lib/ts.cjs');

/**
 * `transformSchema` never reads `ctx.redoc` (only `openapiTS()` lints and bundles with it, the
 * step this module skips), and openapi-typescript's Redocly is its own 1.x copy, not the
 * project's 2.x, so no real instance can be built here. A proxy that throws on any use makes a
 * future openapi-typescript that starts reading it fail loudly instead of quietly.
 */
const UNUSED_REDOCLY_CONFIG = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(`openapi-typescript read ctx.redoc.${String(property)}; pass a real config`);
    },
  },
) as GlobalContext['redoc'];

/** Options of openapi-typescript this project fixes; kept in one place so tests can read them. */
export const TYPE_OPTIONS = {
  readWriteMarkers: true,
  // Optional properties stay optional; `default` does not make them required in responses,
  // because a server may omit them and the client must not be lied to.
  defaultNonNullable: false,
  alphabetize: false,
} as const;

/**
 * Renders `types.ts` for `document` (without the header line).
 *
 * @example generateTypes(doc).includes('export interface paths') // true
 */
export function generateTypes(document: OpenApiDocument): string {
  // openapi-typescript writes into the document it transforms (a discriminator's enum property
  // gets a description appended each time), so it gets a copy: generating twice from one
  // document must give the same text, and the caller's document must stay as it was.
  return generateTypesConsuming(structuredClone(document));
}

/**
 * {@link generateTypes} for a document the caller gives away: it is changed, and must not be
 * used again (the types thread's own copy of what it was sent, which needs no second copy).
 */
export function generateTypesConsuming(copy: OpenApiDocument): string {
  inlinePathReferences(copy);
  const schema = copy as OpenAPI3;
  return printTypes(schema, typesContext(schema));
}

/**
 * openapi-typescript's context for `schema` with {@link TYPE_OPTIONS}: `$ref`s resolve in
 * `schema`, whose discriminators are scanned here (which patches the schemas they map, once).
 */
export function typesContext(schema: OpenAPI3): GlobalContext {
  return {
    additionalProperties: false,
    alphabetize: TYPE_OPTIONS.alphabetize,
    arrayLength: false,
    defaultNonNullable: TYPE_OPTIONS.defaultNonNullable,
    discriminators: scanDiscriminators(schema, { silent: true }),
    emptyObjectsUnknown: false,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    injectFooter: [],
    pathParamsAsTypes: false,
    postTransform: undefined,
    propertiesRequiredByDefault: false,
    rootTypes: false,
    rootTypesNoSchemaPrefix: false,
    rootTypesKeepCasing: false,
    redoc: UNUSED_REDOCLY_CONFIG,
    silent: true,
    transform: undefined,
    transformProperty: undefined,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: TYPE_OPTIONS.readWriteMarkers,
    resolve: ($ref) => resolveRef(schema, $ref, { silent: true }),
  };
}

/**
 * The text openapi-typescript prints for `schema` under `ctx` (whose footer starts empty, so one
 * context can print several documents in turn).
 */
export function printTypes(schema: OpenAPI3, ctx: GlobalContext): string {
  ctx.injectFooter = [];
  return astToString(transformSchema(schema, ctx));
}

/**
 * What else decides the printed text besides the document: {@link TYPE_OPTIONS} and the exact
 * versions of openapi-typescript and TypeScript (a cache of printed text keys on it).
 */
export const TYPES_TOOLCHAIN = JSON.stringify({
  options: TYPE_OPTIONS,
  openapiTypescript: (require('openapi-typescript/package.json') as { version: string }).version,
  typescript: (require('typescript') as { version: string }).version,
});
