import { appendPointer } from '../../contract/pointer.js';
import { type DiffContext, emit } from './context.js';
import { asObject, isObject } from './objects.js';
import { deref } from './refs.js';
import { diffSchema } from './schema-diff.js';
import type { Direction, Located } from './types.js';

/** Media types of a `content` map (OpenAPI 3.0 §4.7.14 Media Type Object): a removed media
 * type breaks clients using it; common ones compare their schemas. */
export function diffContent(ctx: DiffContext, b: Located, h: Located, dir: Direction) {
  const bc = asObject(b.node);
  const hc = asObject(h.node);
  for (const mt of Object.keys(bc)) {
    const ptr = appendPointer(b.ptr, mt);
    if (!(mt in hc)) {
      emit(
        ctx,
        'media-type-removed',
        ptr,
        true,
        dir === 'request'
          ? `request media type ${mt} removed: clients sending it get 415`
          : `response media type ${mt} removed: clients parsing it break`,
      );
      continue;
    }
    diffSchema(
      ctx,
      { node: asObject(bc[mt]).schema, ptr: appendPointer(ptr, 'schema') },
      { node: asObject(hc[mt]).schema, ptr: appendPointer(h.ptr, mt, 'schema') },
      dir,
    );
  }
  for (const mt of Object.keys(hc)) {
    if (!(mt in bc))
      emit(
        ctx,
        'media-type-added',
        appendPointer(h.ptr, mt),
        false,
        `${dir} media type ${mt} added`,
      );
  }
}

/** Request body rules (OpenAPI 3.0 §4.7.13); `dir` is `response` for webhook payloads, which
 * the API sends. */
export function diffRequestBody(
  ctx: DiffContext,
  bOp: Located,
  hOp: Located,
  dir: Direction = 'request',
) {
  const b = deref(ctx.base, {
    node: asObject(bOp.node).requestBody,
    ptr: appendPointer(bOp.ptr, 'requestBody'),
  });
  const h = deref(ctx.head, {
    node: asObject(hOp.node).requestBody,
    ptr: appendPointer(hOp.ptr, 'requestBody'),
  });
  const bn = isObject(b.node) ? b.node : undefined;
  const hn = isObject(h.node) ? h.node : undefined;
  if (!bn && !hn) return;
  if (!bn) {
    const breaking = dir === 'request' && hn?.required === true;
    emit(
      ctx,
      'request-body-added',
      h.ptr,
      breaking,
      breaking
        ? 'required request body added: requests without a body are rejected'
        : 'optional request body added',
    );
    return;
  }
  if (!hn) {
    emit(
      ctx,
      'request-body-removed',
      b.ptr,
      true,
      'request body removed: clients still sending one are rejected or ignored',
    );
    return;
  }
  if (dir === 'request' && bn.required !== true && hn.required === true) {
    emit(
      ctx,
      'request-body-required',
      h.ptr,
      true,
      'request body became required: requests without one are rejected',
    );
  }
  diffContent(
    ctx,
    { node: bn.content, ptr: appendPointer(b.ptr, 'content') },
    { node: hn.content, ptr: appendPointer(h.ptr, 'content') },
    dir,
  );
}

/** Responses rules (OpenAPI 3.0 §4.7.16/17): statuses, their headers and bodies, response
 * direction. */
export function diffResponses(ctx: DiffContext, bOp: Located, hOp: Located) {
  const bPtr = appendPointer(bOp.ptr, 'responses');
  const hPtr = appendPointer(hOp.ptr, 'responses');
  const br = asObject(asObject(bOp.node).responses);
  const hr = asObject(asObject(hOp.node).responses);
  for (const status of Object.keys(br)) {
    if (!(status in hr)) {
      emit(
        ctx,
        'response-removed',
        appendPointer(bPtr, status),
        true,
        `response ${status} removed: clients relying on that documented outcome break`,
      );
      continue;
    }
    const b = deref(ctx.base, { node: br[status], ptr: appendPointer(bPtr, status) });
    const h = deref(ctx.head, { node: hr[status], ptr: appendPointer(hPtr, status) });
    diffHeaders(ctx, b, h);
    diffContent(
      ctx,
      { node: asObject(b.node).content, ptr: appendPointer(b.ptr, 'content') },
      { node: asObject(h.node).content, ptr: appendPointer(h.ptr, 'content') },
      'response',
    );
  }
  for (const status of Object.keys(hr)) {
    if (!(status in br))
      emit(ctx, 'response-added', appendPointer(hPtr, status), false, `response ${status} added`);
  }
}

function headerMap(loc: Located): Map<string, Located> {
  const headers = asObject(asObject(loc.node).headers);
  return new Map(
    Object.entries(headers).map(([name, node]) => [
      name.toLowerCase(),
      { node, ptr: appendPointer(loc.ptr, 'headers', name) },
    ]),
  );
}

function diffHeaders(ctx: DiffContext, b: Located, h: Located) {
  const bh = headerMap(b);
  const hh = headerMap(h);
  for (const [name, loc] of bh) {
    const match = hh.get(name);
    if (!match) {
      emit(
        ctx,
        'response-header-removed',
        loc.ptr,
        true,
        `response header ${name} removed: clients reading it break`,
      );
      continue;
    }
    const bn = asObject(deref(ctx.base, loc).node);
    const hnLoc = deref(ctx.head, match);
    const hn = asObject(hnLoc.node);
    if (bn.required === true && hn.required !== true) {
      emit(
        ctx,
        'response-header-optional',
        hnLoc.ptr,
        true,
        `response header ${name} may now be absent: clients expecting it break`,
      );
    }
    diffSchema(
      ctx,
      { node: bn.schema, ptr: appendPointer(deref(ctx.base, loc).ptr, 'schema') },
      { node: hn.schema, ptr: appendPointer(hnLoc.ptr, 'schema') },
      'response',
    );
  }
  for (const [name, loc] of hh) {
    if (!bh.has(name))
      emit(ctx, 'response-header-added', loc.ptr, false, `response header ${name} added`);
  }
}
