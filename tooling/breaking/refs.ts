import { isObject } from '../openapi/document.js';

/** Name a `$ref` points at (its last segment), used to pair `oneOf` variants across versions.
 * (Following refs is the model's: `locate` in `tooling/openapi/document.ts`.) */
export function refName(node: unknown): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  return node.$ref.split('/').pop();
}
