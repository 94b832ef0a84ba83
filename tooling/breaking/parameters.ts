import { appendPointer } from '../../contract/pointer.js';
import { readContent } from '../openapi/media.js';
import { type DiffContext, emit } from './context.js';
import { asObject, canonical } from './objects.js';
import { diffSchema } from './schema-diff.js';
import type { NodeAt } from './types.js';

function label(p: Record<string, unknown>): string {
  return `${String(p.in)} parameter \`${String(p.name)}\``;
}

/** Parameter rules (OpenAPI 3.0 §4.7.12); parameter schemas compare in the request direction.
 * `base` and `head` are an operation's merged parameters as the model's tolerant reading keys
 * them (`OperationAt.parameters`). */
export function diffParameters(
  ctx: DiffContext,
  base: Map<string, NodeAt>,
  head: Map<string, NodeAt>,
) {
  for (const [key, loc] of base) {
    if (head.has(key)) continue;
    emit(
      ctx,
      'parameter-removed',
      loc.pointer,
      true,
      `${label(asObject(loc.node))} removed or renamed: clients still sending it are rejected`,
    );
  }
  for (const [key, loc] of head) {
    const h = asObject(loc.node);
    const before = base.get(key);
    if (!before) {
      const breaking = h.required === true;
      emit(
        ctx,
        breaking ? 'parameter-added-required' : 'parameter-added',
        loc.pointer,
        breaking,
        breaking
          ? `new required ${label(h)}: requests without it are rejected`
          : `new optional ${label(h)}`,
      );
      continue;
    }
    const b = asObject(before.node);
    if (Boolean(b.required) !== Boolean(h.required)) {
      const breaking = h.required === true;
      emit(
        ctx,
        breaking ? 'parameter-required' : 'parameter-optional',
        loc.pointer,
        breaking,
        breaking
          ? `${label(h)} became required: requests without it are rejected`
          : `${label(h)} became optional`,
      );
    }
    for (const kw of ['style', 'explode', 'allowReserved']) {
      if (canonical(b[kw]) === canonical(h[kw])) continue;
      emit(
        ctx,
        'parameter-style-changed',
        loc.pointer,
        true,
        `${label(h)} \`${kw}\` changed: clients serialise it the old way and are misread`,
      );
    }
    diffParameterSchema(ctx, before, loc);
    const docs = ['description', 'deprecated', 'example', 'examples'].filter(
      (kw) => canonical(b[kw]) !== canonical(h[kw]),
    );
    if (docs.length > 0) {
      emit(
        ctx,
        'docs-changed',
        loc.pointer,
        false,
        `documentation of ${label(h)} changed (${docs.join(', ')})`,
      );
    }
  }
}

function diffParameterSchema(ctx: DiffContext, b: NodeAt, h: NodeAt) {
  const bn = asObject(b.node);
  const hn = asObject(h.node);
  if (bn.schema !== undefined || hn.schema !== undefined) {
    diffSchema(
      ctx,
      { node: bn.schema, pointer: appendPointer(b.pointer, 'schema') },
      { node: hn.schema, pointer: appendPointer(h.pointer, 'schema') },
      'request',
    );
  }
  // `content` parameters carry one media type; compare the schemas of the ones both declare.
  const content = (p: Record<string, unknown>, at: NodeAt) =>
    readContent({ node: p.content, pointer: appendPointer(at.pointer, 'content') });
  const hc = content(hn, h);
  for (const [mt, media] of content(bn, b)) {
    const head = hc.get(mt);
    if (head) diffSchema(ctx, media.schema, head.schema, 'request');
  }
}
