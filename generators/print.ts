/**
 * Prints JSON data as a TypeScript expression the way the project's formatter writes code:
 * single quotes, bare keys where possible, two-space indent, and a value kept on one line only
 * when it fits in the line width. Generated files are printed, not formatted afterwards, so
 * generation needs no formatter process and the output is the same on every machine.
 */
import { literal, propertyKey } from './names.js';

/** The line width of `biome.json`. */
export const LINE_WIDTH = 100;

/**
 * `value` as TypeScript source, starting at column `column` (where the expression begins) and
 * indented `indent` spaces on the lines after the first.
 *
 * @example printValue({ type: 'string', enum: ['a', 'b'] }, 0, 0) // "{ type: 'string', enum: ['a', 'b'] }"
 */
export function printValue(value: unknown, indent: number, column: number): string {
  if (!isContainer(value)) return printFlat(value, Number.POSITIVE_INFINITY) ?? String(value);
  const flat = printFlat(value, LINE_WIDTH - column);
  if (flat !== undefined) return flat;
  const inner = ' '.repeat(indent + 2);
  const items: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      items.push(`${inner}${printValue(item, indent + 2, indent + 2)},`);
    }
    return `[\n${items.join('\n')}\n${' '.repeat(indent)}]`;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const head = `${inner}${printKey(key)}: `;
    items.push(`${head}${printValue(item, indent + 2, head.length)},`);
  }
  return `{\n${items.join('\n')}\n${' '.repeat(indent)}}`;
}

/**
 * `value` on one line, or `undefined` as soon as it is longer than `budget` characters: each
 * level of a large tree gives up after a line's worth of work, so printing stays linear.
 */
function printFlat(value: unknown, budget: number): string | undefined {
  if (typeof value === 'string') return literal(value);
  if (value === null || typeof value !== 'object') return String(value);
  const array = Array.isArray(value);
  const entries = array ? value.map((item) => ['', item] as const) : Object.entries(value);
  if (entries.length === 0) return array ? '[]' : '{}';
  let out = array ? '[' : '{ ';
  for (const [index, [key, item]] of entries.entries()) {
    if (index > 0) out += ', ';
    if (!array) out += `${printKey(key)}: `;
    const text = printFlat(item, budget - out.length);
    if (text === undefined) return undefined;
    out += text;
    if (out.length > budget) return undefined;
  }
  out += array ? ']' : ' }';
  return out.length > budget ? undefined : out;
}

/** `__proto__` written plainly would set the literal's prototype; computed, it is a property. */
function printKey(key: string): string {
  return key === '__proto__' ? `[${literal(key)}]` : propertyKey(key);
}

function isContainer(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0;
}
