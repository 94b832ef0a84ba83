import { appendPointer } from '../../contract/pointer.js';
import {
  type EntryPair,
  type OperationAt,
  pairPathItems,
  pairPaths,
  pairWebhooks,
} from '../openapi/path-items.js';
import { diffRequestBody, diffResponses } from './bodies.js';
import { type DiffContext, emit } from './context.js';
import { canonical, show } from './objects.js';
import { diffParameters } from './parameters.js';
import { diffOperationSecurity } from './security-rules.js';
import type { NodeAt } from './types.js';

/**
 * Paths Object rules (OpenAPI 3.0 §4.7.8): a path gone is a 404 for every caller. The model
 * pairs the paths (`pairPaths`: a path whose parameters were renamed is the same route).
 */
export function diffPaths(ctx: DiffContext) {
  for (const { key: path, base, head } of pairPaths(ctx.base, ctx.head)) {
    if (!base) {
      if (!head) continue;
      ctx.operation = undefined;
      emit(ctx, 'path-added', head.pointer, false, `path ${path} added`);
      continue;
    }
    if (!head) {
      ctx.operation = undefined;
      emit(
        ctx,
        'path-removed',
        base.pointer,
        true,
        `path ${path} removed or renamed: clients calling it get 404`,
      );
      continue;
    }
    diffPathItem(ctx, base, head, head.key);
  }
  ctx.operation = undefined;
}

/**
 * The operations of two revisions of a Path Item, read by the model's tolerant reading (a base
 * revision with a broken or older shape is still compared) and paired by method.
 */
function operationPairs(ctx: DiffContext, b: NodeAt, h: NodeAt) {
  return pairPathItems({ document: ctx.base, item: b }, { document: ctx.head, item: h });
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
function diffOperation(ctx: DiffContext, bOp: OperationAt, hOp: OperationAt) {
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
 * Webhook rules (`x-webhooks`, OpenAPI 3.1 `webhooks`, paired by the model's `pairWebhooks`):
 * an event type no longer sent breaks receivers; a payload is something the API SENDS, so it
 * compares in the response direction.
 */
export function diffWebhooks(ctx: DiffContext, key: 'x-webhooks' | 'webhooks') {
  for (const pair of pairWebhooks(ctx.base, ctx.head, key)) diffWebhook(ctx, pair);
  ctx.operation = undefined;
}

function diffWebhook(ctx: DiffContext, { key: name, base, head }: EntryPair) {
  ctx.operation = base ? `webhook ${name}` : undefined;
  if (!base) {
    if (head) emit(ctx, 'webhook-added', head.pointer, false, `webhook event ${name} added`);
    return;
  }
  if (!head) {
    emit(
      ctx,
      'webhook-removed',
      base.pointer,
      true,
      `webhook event ${name} removed: receivers waiting for it break`,
    );
    return;
  }
  for (const { base: bOp, head: hOp } of operationPairs(ctx, base, head)) {
    if (bOp && hOp) diffRequestBody(ctx, bOp, hOp, 'response');
  }
}
