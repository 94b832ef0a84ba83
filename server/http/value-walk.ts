/**
 * A walk over a parsed JSON value (or a parsed query string) that finds the first leaf or
 * object key failing a test. Iterative, not recursive: a body may nest arrays a few hundred
 * thousand deep within the 1 MiB limit, and the walk runs before any schema bounds the depth.
 */

/** Where a value sits: object keys and array indexes from the root. */
export type ValuePath = readonly (string | number)[];

/** A value that failed the test. For a key, `path` is the object holding it. */
export interface Found {
  path: ValuePath;
  value: unknown;
  inKey: boolean;
}

interface Step {
  value: unknown;
  parent: Step | null;
  key: string | number | null;
}

function pathOf(step: Step): (string | number)[] {
  const out: (string | number)[] = [];
  for (let s: Step | null = step; s !== null && s.key !== null; s = s.parent) out.push(s.key);
  return out.reverse();
}

/**
 * The first leaf (string, number, boolean, null) for which `fails` is true, or, when
 * `keys` is set, the first object key for which it is true (keys are tested as strings).
 */
export function findValue(
  root: unknown,
  fails: (value: unknown, inKey: boolean) => boolean,
  keys: boolean,
): Found | undefined {
  const stack: Step[] = [{ value: root, parent: null, key: null }];
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    const { value } = step;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], parent: step, key: i });
      }
    } else if (value !== null && typeof value === 'object') {
      const names = Object.keys(value);
      if (keys) {
        const bad = names.find((name) => fails(name, true));
        if (bad !== undefined) return { path: pathOf(step), value: bad, inKey: true };
      }
      for (let i = names.length - 1; i >= 0; i--) {
        const name = names[i];
        if (name === undefined) continue;
        stack.push({ value: (value as Record<string, unknown>)[name], parent: step, key: name });
      }
    } else if (fails(value, false)) {
      return { path: pathOf(step), value, inKey: false };
    }
  }
  return undefined;
}

/** `name[family]`, `line_items[0][quantity]`: the bracket notation of error `param`s. */
export function bracketPath(path: ValuePath): string | null {
  const [first, ...rest] = path;
  if (first === undefined) return null;
  return String(first) + rest.map((segment) => `[${String(segment)}]`).join('');
}
