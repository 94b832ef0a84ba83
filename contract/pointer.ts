/**
 * JSON Pointer (RFC 6901), as OpenAPI 3.0 uses it in Reference Objects (§4.7.23) and as Ajv and
 * Redocly report locations: the one escaper, parser and resolver of the project.
 */

/** Escapes one reference token: `/v1/patients` → `~1v1~1patients`. */
export function escapeToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token; // most tokens: nothing to do
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Unescapes one reference token: `~1v1~1patients` → `/v1/patients`. */
export function unescapeToken(token: string): string {
  if (!token.includes('~')) return token;
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Builds a URI-fragment pointer from tokens: `['paths', '/v1']` → `#/paths/~1v1`. */
export function toPointer(tokens: readonly (string | number)[]): string {
  return `#${tokens.map((token) => `/${escapeToken(String(token))}`).join('')}`;
}

/** Appends tokens to a pointer: `appendPointer('#/paths', '/v1')` → `#/paths/~1v1`. */
export function appendPointer(pointer: string, ...tokens: readonly (string | number)[]): string {
  return `${pointer}${toPointer(tokens).slice(1)}`;
}

/**
 * Splits a pointer into unescaped tokens. Takes both forms: `#/a/b` (a URI fragment, as in
 * `$ref`) and `/a/b` (as Ajv's `instancePath`); `''` and `'#'` are the root.
 */
export function parsePointer(pointer: string): string[] {
  const text = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (text === '') return [];
  return text.slice(1).split('/').map(unescapeToken);
}

/**
 * Splits a `$ref` fragment into tokens, percent-decoded (RFC 6901 §6) where the encoding is
 * valid: `#/components/schemas/Pet%20Store` → `['components', 'schemas', 'Pet Store']`.
 */
export function parseReference(ref: string): string[] {
  return parsePointer(ref).map((token) => percentDecoded(token) ?? token);
}

/**
 * Reads the value a pointer names inside `root`, or `undefined` when a step is missing. A `$ref`
 * fragment may be percent-encoded (`#/components/schemas/Pet%20Store`, RFC 6901 §6); a token
 * that is not found as written is looked up decoded. Only own properties are followed.
 */
export function getAtPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const token of parsePointer(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    const record = node as Record<string, unknown>;
    if (Object.hasOwn(record, token)) node = record[token];
    else {
      const decoded = percentDecoded(token);
      if (decoded === undefined || !Object.hasOwn(record, decoded)) return undefined;
      node = record[decoded];
    }
  }
  return node;
}

function percentDecoded(token: string): string | undefined {
  if (!token.includes('%')) return undefined;
  try {
    return decodeURIComponent(token);
  } catch {
    return undefined;
  }
}
