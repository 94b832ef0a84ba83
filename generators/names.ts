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

/** Characters `literal` writes other than as themselves (most strings have none). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const NEEDS_ESCAPE = /[\\'\u0000-\u001f\u007f\u2028\u2029\ud800-\udfff]/;

/**
 * A single-quoted string literal for emitted TypeScript: `\\`, `'`, `\n` and `\r` escaped as
 * such; other control characters, U+2028/U+2029 and lone surrogates as `\uXXXX`, so the file
 * stays valid UTF-8 text whatever the document holds.
 */
export function literal(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `'${text}'`;
  let out = "'";
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char === '\\' || char === "'") out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (
      code < 0x20 ||
      code === 0x7f ||
      code === 0x2028 ||
      code === 0x2029 ||
      (char.length === 1 && code >= 0xd800 && code <= 0xdfff)
    ) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else out += char;
  }
  return `${out}'`;
}
