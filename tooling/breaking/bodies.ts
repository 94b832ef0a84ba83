import { appendPointer } from '../../contract/pointer.js';
import { isObject } from '../openapi/document.js';
import type { MediaAt } from '../openapi/media.js';
import type { EntryAt, OperationAt } from '../openapi/path-items.js';
import { type DiffContext, emit } from './context.js';
import { asObject } from './objects.js';
import { diffSchema } from './schema-diff.js';
import type { Direction } from './types.js';

/** Media types of a `content` map as the model reads them (OpenAPI 3.0 §4.7.14 Media Type
 * Object): a removed media type breaks clients using it; common ones compare their schemas. */
function diffContent(
  ctx: DiffContext,
  base: Map<string, MediaAt>,
  head: Map<string, MediaAt>,
  dir: Direction,
) {
  for (const [mt, b] of base) {
    const h = head.get(mt);
    if (!h) {
      emit(
        ctx,
        'media-type-removed',
        b.pointer,
        true,
        dir === 'request'
          ? `request media type ${mt} removed: clients sending it get 415`
          : `response media type ${mt} removed: clients parsing it break`,
      );
      continue;
    }
    diffSchema(ctx, b.schema, h.schema, dir);
  }
  for (const [mt, h] of head) {
    if (!base.has(mt))
      emit(ctx, 'media-type-added', h.pointer, false, `${dir} media type ${mt} added`);
  }
}

/** Request body rules (OpenAPI 3.0 §4.7.13); `dir` is `response` for webhook payloads, which
 * the API sends. */
export function diffRequestBody(
  ctx: DiffContext,
  bOp: OperationAt,
  hOp: OperationAt,
  dir: Direction = 'request',
) {
  const b = bOp.requestBody;
  const h = hOp.requestBody;
  const bn = isObject(b.node) ? b.node : undefined;
  const hn = isObject(h.node) ? h.node : undefined;
  if (!bn && !hn) return;
  if (!bn) {
    const breaking = dir === 'request' && hn?.required === true;
    emit(
      ctx,
      'request-body-added',
      h.pointer,
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
      b.pointer,
      true,
      'request body removed: clients still sending one are rejected or ignored',
    );
    return;
  }
  if (dir === 'request' && bn.required !== true && hn.required === true) {
    emit(
      ctx,
      'request-body-required',
      h.pointer,
      true,
      'request body became required: requests without one are rejected',
    );
  }
  diffContent(ctx, b.content, h.content, dir);
}

/** Responses rules (OpenAPI 3.0 §4.7.16/17): statuses, their headers and bodies, response
 * direction. */
export function diffResponses(ctx: DiffContext, bOp: OperationAt, hOp: OperationAt) {
  for (const [status, base] of bOp.responses) {
    const head = hOp.responses.get(status);
    if (!head) {
      emit(
        ctx,
        'response-removed',
        base.at,
        true,
        `response ${status} removed: clients relying on that documented outcome break`,
      );
      continue;
    }
    diffHeaders(ctx, base.headers, head.headers);
    diffContent(ctx, base.content, head.content, 'response');
  }
  for (const [status, head] of hOp.responses) {
    if (!bOp.responses.has(status))
      emit(ctx, 'response-added', head.at, false, `response ${status} added`);
  }
}

/** Response headers, paired by name case-insensitively (the model's keys). */
function diffHeaders(ctx: DiffContext, bh: Map<string, EntryAt>, hh: Map<string, EntryAt>) {
  for (const [name, base] of bh) {
    const head = hh.get(name);
    if (!head) {
      emit(
        ctx,
        'response-header-removed',
        base.at,
        true,
        `response header ${name} removed: clients reading it break`,
      );
      continue;
    }
    const bn = asObject(base.resolved.node);
    const hn = asObject(head.resolved.node);
    if (bn.required === true && hn.required !== true) {
      emit(
        ctx,
        'response-header-optional',
        head.resolved.pointer,
        true,
        `response header ${name} may now be absent: clients expecting it break`,
      );
    }
    diffSchema(
      ctx,
      { node: bn.schema, pointer: appendPointer(base.resolved.pointer, 'schema') },
      { node: hn.schema, pointer: appendPointer(head.resolved.pointer, 'schema') },
      'response',
    );
  }
  for (const [name, head] of hh) {
    if (!bh.has(name))
      emit(ctx, 'response-header-added', head.at, false, `response header ${name} added`);
  }
}
