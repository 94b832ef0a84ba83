import { appendPointer } from '../../contract/pointer.js';
import { pairOperations, pathItemOperations } from '../openapi/operations.js';
import { diffRequestBody, diffResponses } from './bodies.js';
import { type DiffContext, emit } from './context.js';
import { asObject, canonical, isObject, show } from './objects.js';
import { collectParameters, diffParameters } from './parameters.js';
import { deref } from './refs.js';
import { diffOperationSecurity } from './security-rules.js';
import type { Located } from './types.js';

/** `/v1/patients/{id}` and `/v1/patients/{patient}` are the same route to a client. */
function routeKey(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}

/** Paths Object rules (OpenAPI 3.0 §4.7.8): a path gone is a 404 for every caller. */
export function diffPaths(ctx: DiffContext) {
  const bp = asObject(ctx.base.paths);
  const hp = asObject(ctx.head.paths);
  const headByRoute = new Map(Object.keys(hp).map((p) => [routeKey(p), p]));
  const matched = new Set<string>();
  for (const path of Object.keys(bp)) {
    const headPath = path in hp ? path : headByRoute.get(routeKey(path));
    if (!headPath) {
      ctx.operation = undefined;
      emit(
        ctx,
        'path-removed',
        appendPointer('/paths', path),
        true,
        `path ${path} removed or renamed: clients calling it get 404`,
      );
      continue;
    }
    matched.add(headPath);
    diffPathItem(
      ctx,
      { node: bp[path], ptr: appendPointer('/paths', path) },
      { node: hp[headPath], ptr: appendPointer('/paths', headPath) },
      headPath,
    );
  }
  ctx.operation = undefined;
  for (const path of Object.keys(hp)) {
    if (!matched.has(path))
      emit(ctx, 'path-added', appendPointer('/paths', path), false, `path ${path} added`);
  }
}

/**
 * The operations of two revisions of a Path Item, paired by method through the model's walk.
 * Tolerant: whatever is not an object (a `null` operation, a Path Item that is a string) counts
 * as absent, so a base revision with a broken or older shape is still compared.
 */
function operationPairs(
  b: Located,
  h: Located,
): { method: string; base?: Located; head?: Located }[] {
  const objects = (item: Located) =>
    pathItemOperations(item.node, item.ptr).filter((op) => isObject(op.node));
  return pairOperations(objects(b), objects(h)).map(({ method, base, head }) => ({
    method,
    ...(base && { base: { node: base.node, ptr: base.pointer } }),
    ...(head && { head: { node: head.node, ptr: head.pointer } }),
  }));
}

function diffPathItem(ctx: DiffContext, bLoc: Located, hLoc: Located, path: string) {
  const b = deref(ctx.base, bLoc);
  const h = deref(ctx.head, hLoc);
  for (const { method, base: bOp, head: hOp } of operationPairs(b, h)) {
    ctx.operation = `${method.toUpperCase()} ${path}`;
    if (!hOp) {
      if (!bOp) continue;
      emit(
        ctx,
        'operation-removed',
        bOp.ptr,
        true,
        `operation ${ctx.operation} removed: clients calling it get 404/405`,
      );
      continue;
    }
    if (!bOp) {
      emit(ctx, 'operation-added', hOp.ptr, false, `operation ${ctx.operation} added`);
      continue;
    }
    diffOperation(ctx, b, h, bOp, hOp);
  }
}

/** Operation Object rules (OpenAPI 3.0 §4.7.10). */
function diffOperation(
  ctx: DiffContext,
  bItem: Located,
  hItem: Located,
  bOp: Located,
  hOp: Located,
) {
  const bo = asObject(bOp.node);
  const ho = asObject(hOp.node);
  if (bo.operationId !== ho.operationId) {
    emit(
      ctx,
      'operation-id-changed',
      appendPointer(hOp.ptr, 'operationId'),
      true,
      `operationId ${show(bo.operationId)} → ${show(ho.operationId)}: the generated client method is renamed, SDK callers break`,
    );
  }
  diffOperationSecurity(ctx, bOp, hOp);
  diffParameters(
    ctx,
    collectParameters(ctx.base, bItem, bOp),
    collectParameters(ctx.head, hItem, hOp),
  );
  diffRequestBody(ctx, bOp, hOp);
  diffResponses(ctx, bOp, hOp);
  const docs = ['summary', 'description', 'tags', 'deprecated', 'externalDocs'].filter(
    (kw) => canonical(bo[kw]) !== canonical(ho[kw]),
  );
  if (docs.length > 0)
    emit(ctx, 'docs-changed', hOp.ptr, false, `documentation changed (${docs.join(', ')})`);
}

/**
 * Webhook rules (`x-webhooks`, OpenAPI 3.1 `webhooks`): an event type no longer sent breaks
 * receivers; a payload is something the API SENDS, so it compares in the response direction.
 */
export function diffWebhooks(ctx: DiffContext, key: 'x-webhooks' | 'webhooks') {
  const b = asObject(ctx.base[key]);
  const h = asObject(ctx.head[key]);
  for (const name of Object.keys(b)) {
    ctx.operation = `webhook ${name}`;
    const ptr = appendPointer(`/${key}`, name);
    if (!(name in h)) {
      emit(
        ctx,
        'webhook-removed',
        ptr,
        true,
        `webhook event ${name} removed: receivers waiting for it break`,
      );
      continue;
    }
    const bi = deref(ctx.base, { node: b[name], ptr });
    const hi = deref(ctx.head, { node: h[name], ptr });
    for (const { base: bOp, head: hOp } of operationPairs(bi, hi)) {
      if (bOp && hOp) diffRequestBody(ctx, bOp, hOp, 'response');
    }
  }
  ctx.operation = undefined;
  for (const name of Object.keys(h)) {
    if (!(name in b))
      emit(
        ctx,
        'webhook-added',
        appendPointer(`/${key}`, name),
        false,
        `webhook event ${name} added`,
      );
  }
}
