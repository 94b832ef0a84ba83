import { appendPointer } from '../../contract/pointer.js';
import { parameterKey } from '../openapi/operations.js';
import { type DiffContext, emit } from './context.js';
import { asObject, canonical } from './objects.js';
import { deref } from './refs.js';
import { diffSchema } from './schema-diff.js';
import type { Located, OpenApiDocument } from './types.js';

/**
 * Path-level and operation-level parameters of one operation, the operation's winning on the
 * same `in` + `name` (OpenAPI 3.0 §4.7.9 Path Item `parameters`), keyed as the model keys
 * them (`parameterKey`: header names case-insensitive).
 */
export function collectParameters(
  doc: OpenApiDocument,
  pathItem: Located,
  op: Located,
): Map<string, Located> {
  const out = new Map<string, Located>();
  for (const owner of [pathItem, op]) {
    const list = asObject(owner.node).parameters;
    if (!Array.isArray(list)) continue;
    list.forEach((node, i) => {
      const loc = deref(doc, { node, ptr: appendPointer(owner.ptr, 'parameters', i) });
      const p = asObject(loc.node);
      out.set(parameterKey(p.in, p.name), loc);
    });
  }
  return out;
}

function label(p: Record<string, unknown>): string {
  return `${String(p.in)} parameter \`${String(p.name)}\``;
}

/** Parameter rules (OpenAPI 3.0 §4.7.12); parameter schemas compare in the request direction. */
export function diffParameters(
  ctx: DiffContext,
  base: Map<string, Located>,
  head: Map<string, Located>,
) {
  for (const [key, loc] of base) {
    if (head.has(key)) continue;
    emit(
      ctx,
      'parameter-removed',
      loc.ptr,
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
        loc.ptr,
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
        loc.ptr,
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
        loc.ptr,
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
        loc.ptr,
        false,
        `documentation of ${label(h)} changed (${docs.join(', ')})`,
      );
    }
  }
}

function diffParameterSchema(ctx: DiffContext, b: Located, h: Located) {
  const bn = asObject(b.node);
  const hn = asObject(h.node);
  if (bn.schema !== undefined || hn.schema !== undefined) {
    diffSchema(
      ctx,
      { node: bn.schema, ptr: appendPointer(b.ptr, 'schema') },
      { node: hn.schema, ptr: appendPointer(h.ptr, 'schema') },
      'request',
    );
  }
  // `content` parameters carry one media type; compare the schemas of the ones both declare.
  const bc = asObject(bn.content);
  const hc = asObject(hn.content);
  for (const mt of Object.keys(bc)) {
    if (!(mt in hc)) continue;
    diffSchema(
      ctx,
      { node: asObject(bc[mt]).schema, ptr: appendPointer(b.ptr, 'content', mt, 'schema') },
      { node: asObject(hc[mt]).schema, ptr: appendPointer(h.ptr, 'content', mt, 'schema') },
      'request',
    );
  }
}
