import type { Oas3Rule, UserContext } from '@redocly/openapi-core';
import {
  deref,
  locationKey,
  pathOperationsVisitor,
  pointerLabel,
  type Resolved,
  type SpecNode,
} from '../lib/nodes.js';

/**
 * `patient-care/examples-present`: every component schema has an `example`, every request
 * body and 2xx response media type has `example` or `examples`, and every parameter an
 * operation takes (its own or its path's) has `example` or `examples`, so each operation with
 * input shows a request to copy. Examples are what the docs show
 * and what the mock server returns; the built-in `no-invalid-*-examples` rules then check
 * each one against its schema, so they cannot drift.
 */
export const ExamplesPresent: Oas3Rule = () => {
  /** Shared request bodies and responses already checked, so each is reported once. */
  const checked = new Set<string>();

  const visitor = pathOperationsVisitor(({ operation, ctx, label, pathItem, pathItemLocation }) => {
    const lists: Array<[unknown, Resolved['location']]> = [
      [pathItem.parameters, pathItemLocation.child(['parameters'])],
      [operation.parameters, ctx.location.child(['parameters'])],
    ];
    for (const [list, location] of lists) {
      if (!Array.isArray(list)) continue;
      for (const [index, raw] of list.entries()) {
        const parameter = deref(ctx, raw, location.child([index]));
        if (!firstVisit(checked, parameter) || hasParameterExample(parameter.node)) continue;
        ctx.report({
          message: `The ${parameter.node.in} parameter ${parameter.node.name} of ${label} has no example. Add "example:" (or named "examples:") with a synthetic value valid against its schema.`,
          location: parameter.location.key(),
        });
      }
    }
    if (operation.requestBody !== undefined) {
      const body = deref(ctx, operation.requestBody, ctx.location.child(['requestBody']));
      if (firstVisit(checked, body)) {
        const where = body.viaRef
          ? `${pointerLabel(body.location)} (the request body of ${label})`
          : `The request body of ${label}`;
        checkMediaTypes(ctx, body, where);
      }
    }
    const responses =
      operation.responses && typeof operation.responses === 'object' ? operation.responses : {};
    for (const [code, raw] of Object.entries(responses)) {
      if (!/^2/.test(code)) continue;
      const response = deref(ctx, raw, ctx.location.child(['responses', code]));
      if (!firstVisit(checked, response)) continue;
      const where = response.viaRef
        ? `${pointerLabel(response.location)} (the ${code} response of ${label})`
        : `The ${code} response of ${label}`;
      checkMediaTypes(ctx, response, where);
    }
  });

  return {
    Root: {
      enter(root: SpecNode, ctx: UserContext) {
        const schemas = root?.components?.schemas;
        if (!schemas || typeof schemas !== 'object') return;
        for (const [name, raw] of Object.entries(schemas)) {
          const schema = deref(ctx, raw, ctx.location.child(['components', 'schemas', name]));
          if (!schema.node || typeof schema.node !== 'object') continue;
          if (hasSchemaExample(schema.node)) continue;
          ctx.report({
            message: `components.schemas.${name} has no example. Add an "example:" with a realistic, synthetic (never real patient) value that is valid against the schema; docs and mocks show it.`,
            location: schema.location.key(),
          });
        }
      },
    },
    ...visitor,
  };
};

function firstVisit(checked: Set<string>, target: Resolved): boolean {
  if (!target.node || typeof target.node !== 'object') return false;
  if (!target.viaRef) return true;
  const key = locationKey(target.location);
  if (checked.has(key)) return false;
  checked.add(key);
  return true;
}

function hasParameterExample(parameter: SpecNode): boolean {
  if (!parameter || typeof parameter !== 'object') return true;
  const named =
    parameter.examples &&
    typeof parameter.examples === 'object' &&
    Object.keys(parameter.examples).length > 0;
  return 'example' in parameter || Boolean(named);
}

function hasSchemaExample(schema: SpecNode): boolean {
  // OpenAPI 3.0 uses `example`; 3.1 schemas may use the JSON Schema `examples` array.
  return 'example' in schema || (Array.isArray(schema.examples) && schema.examples.length > 0);
}

/** Reports each media type of a resolved request body or response that has no example. */
function checkMediaTypes(ctx: UserContext, target: Resolved, where: string): void {
  const content = target.node.content;
  if (!content || typeof content !== 'object') return;
  for (const [mediaType, media] of Object.entries<SpecNode>(content)) {
    if (!media || typeof media !== 'object') continue;
    const hasExamples =
      media.examples &&
      typeof media.examples === 'object' &&
      Object.keys(media.examples).length > 0;
    if ('example' in media || hasExamples) continue;
    ctx.report({
      message: `${where}: media type ${mediaType} has no example. Add "example:" (or named "examples:") next to its schema, with synthetic data valid against the schema.`,
      location: target.location.child(['content', mediaType]).key(),
    });
  }
}
