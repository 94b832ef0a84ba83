/**
 * Types for the three openapi-typescript modules `types.ts` imports directly. The package root
 * also loads its Redocly 1.x (lint, bundle, config) at import time, which this project never
 * uses from it: importing the parts saves that start-up cost on every `npm run generate`.
 * openapi-typescript is pinned to an exact version, and the generator tests exercise these.
 */
declare module 'openapi-typescript/dist/transform/index.js' {
  export { transformSchema as default } from 'openapi-typescript';
}
declare module 'openapi-typescript/dist/lib/utils.js' {
  export { resolveRef, scanDiscriminators } from 'openapi-typescript';
}
declare module 'openapi-typescript/dist/lib/ts.js' {
  export { astToString } from 'openapi-typescript';
}
