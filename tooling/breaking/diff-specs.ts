import { appendPointer } from '../../contract/pointer.js';
import { type DiffContext, emit, newContext, operationsOf } from './context.js';
import { asObject } from './objects.js';
import { diffPaths, diffWebhooks } from './operations.js';
import { diffSecuritySchemes } from './security-rules.js';
import type { Change, OpenApiDocument } from './types.js';

/**
 * Classifies every client-visible difference between two OpenAPI 3.x documents.
 * Pure: no I/O. External `$ref`s must already be bundled (the model's loader does it:
 * `readLenient` in tooling/openapi/load.ts).
 *
 * @example
 * diffSpecs(base, head).filter((c) => c.breaking)
 * // [{ kind: 'property-removed', pointer: '/components/schemas/Patient/properties/email',
 * //    breaking: true, message: 'response property `email` removed or renamed: ...' }]
 */
export function diffSpecs(base: OpenApiDocument, head: OpenApiDocument): Change[] {
  const ctx = newContext(base, head);
  diffServers(ctx);
  diffPaths(ctx);
  diffWebhooks(ctx, 'x-webhooks');
  diffWebhooks(ctx, 'webhooks');
  diffSecuritySchemes(ctx);
  diffComponentNames(ctx);
  for (const change of ctx.changes) {
    const operations = operationsOf(ctx, change);
    if (operations.length > 0) change.operations = operations;
  }
  return dedupe(ctx.changes);
}

function diffServers(ctx: DiffContext) {
  const urls = (doc: OpenApiDocument) =>
    (Array.isArray(doc.servers) ? doc.servers : []).map((s) => String(asObject(s).url));
  const head = urls(ctx.head);
  urls(ctx.base).forEach((url, i) => {
    if (!head.includes(url))
      emit(
        ctx,
        'server-removed',
        appendPointer('/servers', i),
        true,
        `server ${url} removed: clients configured with it break`,
      );
  });
}

/** Generated SDK types are named after component schemas, so removing or renaming one breaks
 * code that imports the type even when no operation changed shape. */
function diffComponentNames(ctx: DiffContext) {
  const b = asObject(asObject(ctx.base.components).schemas);
  const h = asObject(asObject(ctx.head.components).schemas);
  for (const name of Object.keys(b)) {
    if (!(name in h))
      emit(
        ctx,
        'component-removed',
        appendPointer('/components/schemas', name),
        true,
        `schema ${name} removed or renamed: code using the generated type \`${name}\` breaks`,
      );
  }
  for (const name of Object.keys(h)) {
    if (!(name in b))
      emit(
        ctx,
        'component-added',
        appendPointer('/components/schemas', name),
        false,
        `schema ${name} added`,
      );
  }
}

/** One change per shared node: a change found again through another operation (a shared
 * parameter, header or response) adds that operation to the first one's list. */
function dedupe(changes: Change[]): Change[] {
  const first = new Map<string, Change>();
  return changes.filter((c) => {
    const key = `${c.kind}|${c.pointer}|${c.message}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, c);
      return true;
    }
    if (c.operations) {
      earlier.operations = [...new Set([...(earlier.operations ?? []), ...c.operations])];
    }
    return false;
  });
}
