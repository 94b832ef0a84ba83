/** Escapes one JSON pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapeSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Appends segments to a JSON pointer. `join('/paths', '/v1/x')` → `/paths/~1v1~1x`. */
export function join(ptr: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>((acc, s) => `${acc}/${escapeSegment(String(s))}`, ptr);
}

/** Splits a JSON pointer into unescaped segments. */
export function segmentsOf(ptr: string): string[] {
  if (ptr === '') return [];
  return ptr
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Reads the value at a JSON pointer, or undefined when any segment is missing. */
export function getAt(root: unknown, ptr: string): unknown {
  let node: unknown = root;
  for (const segment of segmentsOf(ptr)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** True when `ancestor` equals `ptr` or contains it (segment-wise prefix). */
export function isAncestorOrSelf(ancestor: string, ptr: string): boolean {
  return ptr === ancestor || ptr.startsWith(`${ancestor}/`);
}
