import type { Location, Oas3Rule, UserContext } from '@redocly/openapi-core';
import {
  deref,
  isRef,
  locationKey,
  pathOperationsVisitor,
  pointerLabel,
  type Resolved,
  type SpecNode,
} from '../lib/nodes.js';
import { ERROR_RESPONSE_COMPONENTS } from '../lib/vocabulary.js';

const ALWAYS_REQUIRED = ['400', '401', '403', '429', '500'];
const ERROR_SCHEMA_REF = '#/components/schemas/Error';

/**
 * `patient-care/operation-error-responses`: every operation documents the errors any client
 * can meet (400, 401, 403, 429, 500; 404 when it addresses a resource by path parameter; 409
 * on POST, for idempotency conflicts and duplicates), and every error response uses the one
 * shared envelope, `#/components/schemas/Error`, so generated clients have a single error type.
 */
export const OperationErrorResponses: Oas3Rule = () => {
  /** The resolved `components.schemas.Error` node; refs are compared to it by identity. */
  let errorSchema: unknown;
  /** Shared (referenced) responses already checked, so each is reported once. */
  const checked = new Set<string>();

  const visitor = pathOperationsVisitor(({ operation, ctx, method, path, label, pathItem }) => {
    const responses =
      operation.responses && typeof operation.responses === 'object' ? operation.responses : {};
    const required = [...ALWAYS_REQUIRED];
    if (hasPathParameter(path, operation, pathItem)) required.push('404');
    if (method === 'post') required.push('409');
    const missing = required.filter((code) => !(code in responses)).sort();
    if (missing.length > 0) {
      const fixes = missing
        .map(
          (code) =>
            `'${code}': {$ref: '#/components/responses/${ERROR_RESPONSE_COMPONENTS[code]}'}`,
        )
        .join(', ');
      ctx.report({
        message: `${label} does not document error response(s) ${missing.join(', ')}. Add under responses: ${fixes}.`,
        location: ctx.location.child(['responses']).key(),
      });
    }

    for (const [code, raw] of Object.entries(responses)) {
      if (!/^[45]/.test(code) && code !== 'default') continue;
      const response = deref(ctx, raw, ctx.location.child(['responses', code]));
      if (!response.node || typeof response.node !== 'object') continue;
      if (response.viaRef) {
        const key = locationKey(response.location);
        if (checked.has(key)) continue;
        checked.add(key);
      }
      const where = response.viaRef
        ? `${pointerLabel(response.location)} (the ${code} response of ${label})`
        : `The ${code} response of ${label}`;
      checkEnvelope(ctx, response, where, errorSchema);
    }
  });

  return {
    Root: {
      enter(root: SpecNode, ctx: UserContext) {
        const raw = root?.components?.schemas?.Error;
        errorSchema = raw
          ? deref(ctx, raw, ctx.location.child(['components', 'schemas', 'Error'])).node
          : undefined;
        if (!errorSchema) {
          ctx.report({
            message:
              'components.schemas.Error is missing. Define the shared error envelope there ({"error": {"type", "code", "message", "param", "doc_url", "request_id"}}) and point every 4xx/5xx response at it.',
            location: root?.components ? ctx.location.child(['components']).key() : ctx.location,
          });
        }
      },
    },
    ...visitor,
  };
};

function hasPathParameter(path: string, operation: SpecNode, pathItem: SpecNode): boolean {
  if (/\{[^}]+\}/.test(path)) return true;
  const params = [...(operation?.parameters ?? []), ...(pathItem?.parameters ?? [])];
  return params.some((param: SpecNode) => param && !isRef(param) && param.in === 'path');
}

/** Checks that an error response's JSON content is exactly a `$ref` to the Error schema. */
function checkEnvelope(
  ctx: UserContext,
  response: Resolved,
  where: string,
  errorSchema: unknown,
): void {
  const content = response.node.content;
  const jsonTypes =
    content && typeof content === 'object' ? Object.keys(content).filter(isJsonMediaType) : [];
  if (jsonTypes.length === 0) {
    ctx.report({
      message: `${where} has no application/json content. Error responses carry the error envelope: add "content: {application/json: {schema: {$ref: '${ERROR_SCHEMA_REF}'}}}".`,
      location: response.location.key(),
    });
    return;
  }
  for (const mediaType of jsonTypes) {
    const schemaLocation = response.location.child(['content', mediaType, 'schema']);
    const raw = content[mediaType]?.schema;
    let problem: string | undefined;
    if (raw === undefined) {
      problem = 'is missing';
    } else if (!isRef(raw)) {
      problem = 'is an inline schema';
    } else if (!refersToError(ctx, raw, schemaLocation, errorSchema)) {
      problem = `is a $ref to '${raw.$ref}'`;
    }
    if (problem) {
      ctx.report({
        message: `${where}: the ${mediaType} schema ${problem}, but every error response must use the shared envelope. Replace it with "$ref: '${ERROR_SCHEMA_REF}'".`,
        location:
          raw === undefined
            ? response.location.child(['content', mediaType]).key()
            : schemaLocation,
      });
    }
  }
}

function refersToError(
  ctx: UserContext,
  raw: { $ref: string },
  location: Location,
  errorSchema: unknown,
): boolean {
  if (raw.$ref === ERROR_SCHEMA_REF) return true;
  // Split files may reach the same schema through another path; identity decides.
  return errorSchema !== undefined && deref(ctx, raw, location).node === errorSchema;
}

function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json(?:;|$)/i.test(mediaType);
}
