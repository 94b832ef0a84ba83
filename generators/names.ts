/**
 * Names and literals in emitted code: file names, property keys, string literals. (How an
 * operation is named is the OpenAPI model's rule: `tooling/openapi/names.ts`.)
 */

/** `Ephemeral Keys` → `ephemeral-keys`; the handler file name for a tag (README). */
export function kebabCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
}

/** True when `name` can be written as a bare JavaScript identifier. */
export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
}

/** A property key for emitted code: bare when possible, quoted otherwise. */
export function propertyKey(name: string): string {
  return isIdentifier(name) ? name : literal(name);
}

/**
 * What `literal` writes other than as itself: `\\`, `'`, control characters, U+2028/U+2029 and
 * lone surrogates (a valid pair stays as it is). One native scan; the callback runs per match.
 */
const NEEDS_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
  /[\\'\u0000-\u001f\u007f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\n': '\\n',
  '\r': '\\r',
};

function escapeChar(char: string): string {
  return SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A single-quoted string literal for emitted TypeScript: `\\`, `'`, `\n` and `\r` escaped as
 * such; other control characters, U+2028/U+2029 and lone surrogates as `\uXXXX`, so the file
 * stays valid UTF-8 text whatever the document holds.
 */
export function literal(text: string): string {
  return `'${text.replace(NEEDS_ESCAPE, escapeChar)}'`;
}
