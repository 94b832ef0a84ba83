/**
 * The query-string parser Fastify uses. It understands the one level of brackets the spec's
 * `deepObject` parameters need (`created[gt]=1&created[lte]=2` → `{created: {gt, lte}}`) and
 * repeated keys (`a=1&a=2` → `{a: ['1', '2']}`); anything deeper keeps its literal name, so
 * validation reports it as an unknown parameter instead of guessing.
 */

type QueryValue = string | string[] | { [key: string]: string | string[] } | unknown[];
export type ParsedQuery = Record<string, QueryValue>;

const CLOSE_BRACKET = 0x5d; // ]

function decode(text: string): string {
  const spaced = text.includes('+') ? text.replace(/\+/g, ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A malformed escape is kept as written; validation then rejects the value or the name.
    return spaced;
  }
}

function append(target: Record<string, unknown>, key: string, value: string): void {
  const existing = target[key];
  if (existing === undefined) target[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else if (typeof existing === 'string') target[key] = [existing, value];
  // An object already sits here (`a[b]=1&a=2`): an array of both fails validation as
  // `parameter_invalid` for `a`, which is the honest answer to a contradictory query.
  else target[key] = [existing, value];
}

/**
 * Parses a raw query string (without `?`). Returns an object without a prototype, so names
 * like `__proto__` are plain data.
 */
export function parseQueryString(raw: string): ParsedQuery {
  const out: Record<string, unknown> = Object.create(null);
  let start = 0;
  // One pass over `a=1&b=2`, pair by pair, without intermediate arrays: it runs on every
  // request, inside Fastify's router.
  while (start < raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) addPair(out, raw, start, end);
    start = end + 1;
  }
  return out as ParsedQuery;
}

/** Adds `raw[start, end)`, one `name=value` pair, to `out`. */
function addPair(out: Record<string, unknown>, raw: string, start: number, end: number): void {
  const eq = raw.indexOf('=', start);
  const hasValue = eq !== -1 && eq < end;
  const name = decode(raw.slice(start, hasValue ? eq : end));
  if (name === '') return;
  const value = hasValue ? decode(raw.slice(eq + 1, end)) : '';
  // `outer[inner]`: one level of brackets, neither part holding a bracket, `outer` not empty.
  const open = name.indexOf('[');
  if (open <= 0 || name.charCodeAt(name.length - 1) !== CLOSE_BRACKET) {
    append(out, name, value);
    return;
  }
  const outer = name.slice(0, open);
  const inner = name.slice(open + 1, -1);
  if (outer.includes(']') || inner.includes('[') || inner.includes(']')) {
    append(out, name, value);
    return;
  }
  if (inner === '') {
    // `ids[]=a&ids[]=b`: an explicit array.
    const existing = out[outer];
    if (existing === undefined) out[outer] = [value];
    else if (Array.isArray(existing)) existing.push(value);
    else append(out, name, value);
    return;
  }
  let nested = out[outer];
  if (nested === undefined) {
    nested = Object.create(null);
    out[outer] = nested;
  }
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
    append(nested as Record<string, unknown>, inner, value);
  } else {
    // `a=1&a[b]=2`: keep the bracketed name literally so validation can name it.
    append(out, name, value);
  }
}
