import { appendPointer } from '../../contract/pointer.js';
import { pairPathItemsTolerant, type TolerantOperation } from '../openapi/tolerant.js';
import { diffRequestBody, diffResponses } from './bodies.js';
import { type DiffContext, emit } from './context.js';
import { asObject, canonical, show } from './objects.js';
import { diffParameters } from './parameters.js';
import { diffOperationSecurity } from './security-rules.js';
import type { NodeAt } from './types.js';

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
      { node: bp[path], pointer: appendPointer('/paths', path) },
      { node: hp[headPath], pointer: appendPointer('/paths', headPath) },
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
 * The operations of two revisions of a Path Item, read by the model's tolerant reader (a base
 * revision with a broken or older shape is still compared) and paired by method.
 */
function operationPairs(ctx: DiffContext, b: NodeAt, h: NodeAt) {
  return pairPathItemsTolerant({ document: ctx.base, item: b }, { document: ctx.head, item: h });
}

function diffPathItem(ctx: DiffContext, b: NodeAt, h: NodeAt, path: string) {
  for (const { method, base: bOp, head: hOp } of operationPairs(ctx, b, h)) {
    ctx.operation = `${method.toUpperCase()} ${path}`;
    if (!hOp) {
      if (!bOp) continue;
      emit(
        ctx,
        'operation-removed',
        bOp.pointer,
        true,
        `operation ${ctx.operation} removed: clients calling it get 404/405`,
      );
      continue;
    }
    if (!bOp) {
      emit(ctx, 'operation-added', hOp.pointer, false, `operation ${ctx.operation} added`);
      continue;
    }
    diffOperation(ctx, bOp, hOp);
  }
}

/** Operation Object rules (OpenAPI 3.0 §4.7.10). */
function diffOperation(ctx: DiffContext, bOp: TolerantOperation, hOp: TolerantOperation) {
  const bo = bOp.node;
  const ho = hOp.node;
  if (bo.operationId !== ho.operationId) {
    emit(
      ctx,
      'operation-id-changed',
      appendPointer(hOp.pointer, 'operationId'),
      true,
      `operationId ${show(bo.operationId)} → ${show(ho.operationId)}: the generated client method is renamed, SDK callers break`,
    );
  }
  diffOperationSecurity(ctx, bOp, hOp);
  diffParameters(ctx, bOp.parameters, hOp.parameters);
  diffRequestBody(ctx, bOp, hOp);
  diffResponses(ctx, bOp, hOp);
  const docs = ['summary', 'description', 'tags', 'deprecated', 'externalDocs'].filter(
    (kw) => canonical(bo[kw]) !== canonical(ho[kw]),
  );
  if (docs.length > 0)
    emit(ctx, 'docs-changed', hOp.pointer, false, `documentation changed (${docs.join(', ')})`);
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
    const pointer = appendPointer(`/${key}`, name);
    if (!(name in h)) {
      emit(
        ctx,
        'webhook-removed',
        pointer,
        true,
        `webhook event ${name} removed: receivers waiting for it break`,
      );
      continue;
    }
    const items = operationPairs(ctx, { node: b[name], pointer }, { node: h[name], pointer });
    for (const { base: bOp, head: hOp } of items) {
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
