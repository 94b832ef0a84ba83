/**
 * Names and literals in emitted code: file names, property keys, string literals. (How an
 * operation is named is the OpenAPI model's rule: `tooling/openapi/names.ts`.)
 */

/** `Ephemeral Keys` → `ephemeral-keys`; the handler file name for a tag. */
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

/** A single-quoted string literal, escaped, for emitted TypeScript. */
export function literal(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n').replaceAll('\r', '\\r').replaceAll('\u2028', '\\u2028').replaceAll('\u2029', '\\u2029')}'`;
}
