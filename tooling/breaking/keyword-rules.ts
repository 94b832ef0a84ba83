import { type DiffContext, emit } from './context.js';
import { asObject, canonical, show } from './objects.js';
import { CONSTRAINT_KEYWORDS } from './scalar-rules.js';
import type { Direction } from './types.js';

/** Keywords compared by the structural rules in `schema-diff.ts` and `scalar-rules.ts`. */
const HANDLED = new Set([
  ...CONSTRAINT_KEYWORDS,
  'type',
  'nullable',
  'enum',
  'const',
  'items',
  'additionalProperties',
  'oneOf',
  'anyOf',
  'readOnly',
  'writeOnly',
  'default',
  'discriminator',
]);

/** Keywords that change documentation only: reported, never breaking. */
const DOCS = new Set([
  'description',
  'title',
  'example',
  'examples',
  'externalDocs',
  'deprecated',
  'xml',
]);

/**
 * The remaining schema keywords: `default` (a changed request default silently changes what
 * clients that omit the field get: breaking), `discriminator`, documentation (never breaking)
 * and anything unrecognised (breaking, so a human reviews it rather than it slipping through).
 */
export function diffOtherKeywords(
  ctx: DiffContext,
  b: Record<string, unknown>,
  h: Record<string, unknown>,
  pointer: string,
  dir: Direction,
) {
  if (canonical(b.default) !== canonical(h.default)) {
    const breaking = dir === 'request';
    emit(
      ctx,
      'default-changed',
      pointer,
      breaking,
      `${dir} default ${show(b.default)} → ${show(h.default)}${breaking ? ': clients that omit the field now get other behaviour' : ''}`,
    );
  }
  diffDiscriminator(ctx, b, h, pointer);
  const docs: string[] = [];
  const unknown: string[] = [];
  for (const key of new Set([...Object.keys(b), ...Object.keys(h)])) {
    if (HANDLED.has(key) || canonical(b[key]) === canonical(h[key])) continue;
    if (DOCS.has(key) || key.startsWith('x-')) docs.push(key);
    else unknown.push(key);
  }
  if (docs.length > 0)
    emit(ctx, 'docs-changed', pointer, false, `documentation changed (${docs.join(', ')})`);
  for (const key of unknown) {
    emit(
      ctx,
      'keyword-changed',
      pointer,
      true,
      `unclassified change of \`${key}\` in a ${dir} schema: treated as breaking until reviewed`,
    );
  }
}

function diffDiscriminator(
  ctx: DiffContext,
  b: Record<string, unknown>,
  h: Record<string, unknown>,
  pointer: string,
) {
  if (canonical(b.discriminator) === canonical(h.discriminator)) return;
  const bd = asObject(b.discriminator);
  const hd = asObject(h.discriminator);
  const bm = asObject(bd.mapping);
  const hm = asObject(hd.mapping);
  const lost = Object.keys(bm).filter((k) => canonical(bm[k]) !== canonical(hm[k]));
  const breaking =
    b.discriminator !== undefined && (bd.propertyName !== hd.propertyName || lost.length > 0);
  emit(
    ctx,
    'discriminator-changed',
    pointer,
    breaking,
    breaking
      ? `discriminator changed (${bd.propertyName !== hd.propertyName ? `property ${show(bd.propertyName)} → ${show(hd.propertyName)}` : `mapping of ${lost.join(', ')}`}): clients pick the wrong shape`
      : 'discriminator added or extended',
  );
}
