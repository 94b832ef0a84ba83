import type { Oas3Rule } from '@redocly/openapi-core';
import { ACTOR_HEADER, ACTOR_MAX_LENGTH, ACTOR_PATTERN } from '../../../contract/actor.js';
import {
  deref,
  effectiveParameters,
  isPublicOperation,
  locationKey,
  pathOperationsVisitor,
  pointerLabel,
} from '../lib/nodes.js';

/**
 * `patient-care/operation-actor-header`: every operation that takes an API key accepts the
 * `PatientCare-Actor` header (issue 43), the id of the person or system acting that the audit
 * trail records, so no client is left without a typed way to send it. Its schema must be the
 * one form the server accepts (`contract/actor.ts`: a pattern that leaves no room for free
 * text), and its description must tell integrators never to put PHI in it: the value lands
 * in the audit trail and in exports read outside the clinic.
 */
export const OperationActorHeader: Oas3Rule = () => {
  /** Shared header parameters already checked, so each is reported once. */
  const checked = new Set<string>();
  return pathOperationsVisitor(({ operation, ctx, label, pathItem, pathItemLocation }) => {
    if (isPublicOperation(operation)) return;
    const params = effectiveParameters(ctx, operation, ctx.location, pathItem, pathItemLocation);
    const header = params.find(
      (p) =>
        p.node.in === 'header' && String(p.node.name).toLowerCase() === ACTOR_HEADER.toLowerCase(),
    );
    if (!header) {
      ctx.report({
        message: `${label} does not accept the ${ACTOR_HEADER} header, the acting person its audit rows record. Add it to the operation's parameters, e.g. "- $ref: '#/components/parameters/PatientCareActor'" (in: header, required: false, schema {type: string, maxLength: ${ACTOR_MAX_LENGTH}, pattern: '${ACTOR_PATTERN}'}).`,
        location: (operation.parameters ? ctx.location.child(['parameters']) : ctx.location).key(),
      });
      return;
    }
    if (header.viaRef) {
      const key = locationKey(header.location);
      if (checked.has(key)) return;
      checked.add(key);
    }
    const where = header.viaRef
      ? `${pointerLabel(header.location)} (the ${ACTOR_HEADER} header of ${label})`
      : `The ${ACTOR_HEADER} header of ${label}`;
    const schema = header.node.schema
      ? deref(ctx, header.node.schema, header.location.child(['schema'])).node
      : undefined;
    if (
      schema?.type !== 'string' ||
      schema.pattern !== ACTOR_PATTERN ||
      typeof schema.maxLength !== 'number' ||
      schema.maxLength > ACTOR_MAX_LENGTH
    ) {
      ctx.report({
        message: `${where} must have schema {type: string, maxLength: ${ACTOR_MAX_LENGTH}, pattern: '${ACTOR_PATTERN}'}, the one form the server accepts, which leaves no room for names or other free text.`,
        location: header.location.key(),
      });
    }
    const description = typeof header.node.description === 'string' ? header.node.description : '';
    if (!/\bPHI\b/.test(description)) {
      ctx.report({
        message: `${where} must say in its description that the value is never PHI (say "Never PHI" and what to use instead): it is stored in the audit trail and exported.`,
        location: header.location.key(),
      });
    }
  });
};
