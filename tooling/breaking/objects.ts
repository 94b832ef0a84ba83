import { isObject } from '../openapi/document.js';

/** The value as a plain object, or an empty one. */
export function asObject(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

/** Canonical JSON (sorted keys), so equal data compares equal whatever the key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/** Short human form of a value for messages. */
export function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'none' : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
