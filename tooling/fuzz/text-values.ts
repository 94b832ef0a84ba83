/**
 * The fuzzer's reading of the spec's rules for text, numbers and parameters (spec/openapi.yaml,
 * "Text and numbers"), written from the spec rather than imported from the server, so that the
 * two can disagree and the disagreement shows up as a failed case.
 */
// The contract's schema type, not the registry's alias of it: the registry uses these readers,
// so importing from it would close a cycle.
import type { JsonSchema as Schema } from '../../contract/route-types.js';

const INTEGER_TEXT = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Whether every string and key of `value` is Unicode text without NUL, no key is
 * `__proto__`, and every integer is exactly representable (|n| ≤ 2^53 − 1).
 */
export function textRulesHold(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.includes('\u0000') || !node.isWellFormed()) return false;
    } else if (typeof node === 'number') {
      if (Number.isInteger(node) && !Number.isSafeInteger(node)) return false;
    } else if (Array.isArray(node)) stack.push(...node);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key === '__proto__' || key.includes('\u0000') || !key.isWellFormed()) return false;
        stack.push(child);
      }
    }
  }
  return true;
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  return typeof schema.type === 'string' ? [schema.type] : [];
}

/**
 * Parameters as the service must read them from text: an integer is `-`? and decimal digits
 * without leading zeros, a boolean is `true` or `false`, a `deepObject` is read member by
 * member; anything else (and any list for a scalar) stays as sent, for the schema to refuse.
 */
export function readText(
  schema: Schema,
  value: unknown,
  resolve: (schema: Schema) => Schema,
): unknown {
  const node = resolve(schema);
  if (Array.isArray(node.allOf) && node.allOf.length === 1) {
    return readText(node.allOf[0] as Schema, value, resolve);
  }
  const types = typesOf(node);
  if (typeof value === 'string') {
    if (types.includes('integer') && INTEGER_TEXT.test(value)) return Number(value) || 0;
    if (types.includes('boolean') && (value === 'true' || value === 'false')) {
      return value === 'true';
    }
    return value;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => {
      const property = properties[key];
      return [key, property === undefined ? member : readText(property, member, resolve)];
    }),
  );
}
