import type { Oas3Rule } from '@redocly/openapi-core';
import {
  deref,
  effectiveParameters,
  locationKey,
  pathOperationsVisitor,
  pointerLabel,
} from '../lib/nodes.js';

const MAX_KEY_LENGTH = 255;

/**
 * `patient-care/post-idempotency-key`: every POST accepts an `Idempotency-Key` header (a string
 * of at most 255 characters), so a client can retry a create or update safely after a timeout.
 */
export const PostIdempotencyKey: Oas3Rule = () => {
  /** Shared header parameters already checked, so each is reported once. */
  const checked = new Set<string>();
  return pathOperationsVisitor(({ operation, ctx, method, label, pathItem, pathItemLocation }) => {
    if (method !== 'post') return;
    const params = effectiveParameters(ctx, operation, ctx.location, pathItem, pathItemLocation);
    const header = params.find(
      (p) => p.node.in === 'header' && String(p.node.name).toLowerCase() === 'idempotency-key',
    );
    if (!header) {
      ctx.report({
        message: `${label} does not accept the Idempotency-Key header. Add it to the operation's parameters (in: header, name: Idempotency-Key, required: false, schema {type: string, maxLength: ${MAX_KEY_LENGTH}}), e.g. "- $ref: '#/components/parameters/IdempotencyKey'".`,
        location: (operation.parameters ? ctx.location.child(['parameters']) : ctx.location).key(),
      });
      return;
    }
    if (header.viaRef) {
      const key = locationKey(header.location);
      if (checked.has(key)) return;
      checked.add(key);
    }
    const schema = header.node.schema
      ? deref(ctx, header.node.schema, header.location.child(['schema'])).node
      : undefined;
    const maxLength = schema?.maxLength;
    if (schema?.type !== 'string' || typeof maxLength !== 'number' || maxLength > MAX_KEY_LENGTH) {
      ctx.report({
        message: `${header.viaRef ? `${pointerLabel(header.location)} (the Idempotency-Key header of ${label})` : `The Idempotency-Key header of ${label}`} must have schema {type: string, maxLength: ${MAX_KEY_LENGTH}} (or a smaller maxLength), so clients know the server rejects longer keys.`,
        location: header.location.key(),
      });
    }
  });
};
