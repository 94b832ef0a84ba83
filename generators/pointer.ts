/**
 * JSON Pointer (RFC 6901) helpers, as OpenAPI 3.0 uses them in Reference Objects (§4.7.23).
 */

/** Escapes one reference token: `/v1/patients` → `~1v1~1patients`. */
export function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Unescapes one reference token. */
export function unescapeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Builds a URI-fragment pointer from tokens: `['paths', '/v1']` → `#/paths/~1v1`. */
export function toPointer(tokens: readonly (string | number)[]): string {
  return `#${tokens.map((token) => `/${escapeToken(String(token))}`).join('')}`;
}

/** Splits a `#/a/b` pointer into unescaped tokens; the URI-fragment percent-encoding is undone. */
export function parsePointer(pointer: string): string[] {
  const fragment = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (fragment === '') return [];
  return fragment
    .slice(1)
    .split('/')
    .map((token) => unescapeToken(decodeURIComponent(token)));
}

/** Reads the value a pointer names inside `root`, or `undefined` when a step is missing. */
export function getAtPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
