import type { Oas3Rule } from '@redocly/openapi-core';
import { deref, locationKey, pathOperationsVisitor, pointerLabel } from '../lib/nodes.js';

/**
 * `patient-care/response-request-id`: every response of every operation declares the
 * `Request-Id` header (`req_…`), which support and the audit trail use to find a request.
 * Shared responses in components/responses are checked (and reported) once.
 */
export const ResponseRequestId: Oas3Rule = () => {
  const checked = new Set<string>();
  return pathOperationsVisitor(({ operation, ctx, label }) => {
    const responses =
      operation.responses && typeof operation.responses === 'object' ? operation.responses : {};
    for (const [code, raw] of Object.entries(responses)) {
      const response = deref(ctx, raw, ctx.location.child(['responses', code]));
      if (!response.node || typeof response.node !== 'object') continue;
      if (response.viaRef) {
        const key = locationKey(response.location);
        if (checked.has(key)) continue;
        checked.add(key);
      }
      const headers = response.node.headers;
      const names = headers && typeof headers === 'object' ? Object.keys(headers) : [];
      if (names.some((name) => name.toLowerCase() === 'request-id')) continue;
      const where = response.viaRef
        ? `${pointerLabel(response.location)} (the ${code} response of ${label})`
        : `The ${code} response of ${label}`;
      ctx.report({
        message: `${where} does not declare the Request-Id header. Every response carries it: add a "Request-Id" entry under its headers, a $ref to the shared header in components/headers.`,
        location: (headers ? response.location.child(['headers']) : response.location).key(),
      });
    }
  });
};
