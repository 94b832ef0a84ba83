import type { Location, Oas3Rule, UserContext } from '@redocly/openapi-core';
import {
  deref,
  isPublicOperation,
  isRef,
  locationKey,
  pathOperationsVisitor,
  pointerLabel,
  type Resolved,
  type SpecNode,
} from '../lib/nodes.js';
import {
  ERROR_RESPONSE_COMPONENTS,
  FHIR_ERROR_RESPONSE_COMPONENTS,
  FHIR_ERROR_SCHEMA_REF,
  isFhirPath,
} from '../lib/vocabulary.js';

const ALWAYS_REQUIRED = ['400', '401', '403', '429', '500'];
// Public operations (`security: []`, the health probes) meet no key check: no 401 or 403.
const PUBLIC_REQUIRED = ['429', '500'];
const ERROR_SCHEMA_REF = '#/components/schemas/Error';

/**
 * `patient-care/operation-error-responses`: every operation documents the errors any client
 * can meet (400, 401, 403, 429, 500; 404 when it addresses a resource by path parameter; 409
 * on POST, for idempotency conflicts and duplicates; public operations, `security: []`, only
 * 429 and 500), and every error response uses the one
 * shared envelope, `#/components/schemas/Error`, so generated clients have a single error type.
 * Operations under `/fhir/R4` answer errors the FHIR way instead: every error response there is
 * `application/fhir+json` with `#/components/schemas/OperationOutcome`, and the envelope is
 * refused (a FHIR client cannot read it).
 */
export const OperationErrorResponses: Oas3Rule = () => {
  /** The resolved `components.schemas.Error` node; refs are compared to it by identity. */
  let errorSchema: unknown;
  /** The resolved `components.schemas.OperationOutcome`, the FHIR operations' error body. */
  let outcomeSchema: unknown;
  /** Shared (referenced) responses already checked, so each is reported once. */
  const checked = new Set<string>();

  const visitor = pathOperationsVisitor(({ operation, ctx, method, path, label, pathItem }) => {
    const responses =
      operation.responses && typeof operation.responses === 'object' ? operation.responses : {};
    const open = isPublicOperation(operation);
    const required = [...(open ? PUBLIC_REQUIRED : ALWAYS_REQUIRED)];
    if (hasPathParameter(path, operation, pathItem)) required.push('404');
    if (method === 'post') required.push('409');
    const fhir = isFhirPath(path);
    const components = fhir ? FHIR_ERROR_RESPONSE_COMPONENTS : ERROR_RESPONSE_COMPONENTS;
    const missing = required.filter((code) => !(code in responses)).sort();
    if (missing.length > 0) {
      const fixes = missing
        .map((code) => `'${code}': {$ref: '#/components/responses/${components[code]}'}`)
        .join(', ');
      ctx.report({
        message: `${label} does not document error response(s) ${missing.join(', ')}. Add under responses: ${fixes}.`,
        location: ctx.location.child(['responses']).key(),
      });
    }

    for (const [code, raw] of Object.entries(responses)) {
      if (!/^[45]/.test(code) && code !== 'default') continue;
      // A readiness probe's 503 is its report (which check failed), not an API error.
      if (open && code === '503') continue;
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
      const target = fhir
        ? { ref: FHIR_ERROR_SCHEMA_REF, node: outcomeSchema, what: 'FHIR OperationOutcome' }
        : { ref: ERROR_SCHEMA_REF, node: errorSchema, what: 'shared envelope' };
      checkEnvelope(ctx, response, where, target);
    }
  });

  return {
    Root: {
      enter(root: SpecNode, ctx: UserContext) {
        const raw = root?.components?.schemas?.Error;
        errorSchema = raw
          ? deref(ctx, raw, ctx.location.child(['components', 'schemas', 'Error'])).node
          : undefined;
        const outcome = root?.components?.schemas?.OperationOutcome;
        outcomeSchema = outcome
          ? deref(ctx, outcome, ctx.location.child(['components', 'schemas', 'OperationOutcome']))
              .node
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

/** The schema an operation's error responses must `$ref`: `Error`, or FHIR's OperationOutcome. */
interface ErrorTarget {
  ref: string;
  node: unknown;
  what: string;
}

/** Checks that an error response's JSON content is exactly a `$ref` to the target schema. */
function checkEnvelope(
  ctx: UserContext,
  response: Resolved,
  where: string,
  target: ErrorTarget,
): void {
  const content = response.node.content;
  const jsonTypes =
    content && typeof content === 'object' ? Object.keys(content).filter(isJsonMediaType) : [];
  if (jsonTypes.length === 0) {
    ctx.report({
      message: `${where} has no JSON content. Error responses carry the ${target.what}: add "content: {${target.ref === ERROR_SCHEMA_REF ? 'application/json' : 'application/fhir+json'}: {schema: {$ref: '${target.ref}'}}}".`,
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
    } else if (!refersTo(ctx, raw, schemaLocation, target)) {
      problem = `is a $ref to '${raw.$ref}'`;
    }
    if (problem) {
      ctx.report({
        message: `${where}: the ${mediaType} schema ${problem}, but every error response here must use the ${target.what}. Replace it with "$ref: '${target.ref}'".`,
        location:
          raw === undefined
            ? response.location.child(['content', mediaType]).key()
            : schemaLocation,
      });
    }
  }
}

function refersTo(
  ctx: UserContext,
  raw: { $ref: string },
  location: Location,
  target: ErrorTarget,
): boolean {
  if (raw.$ref === target.ref) return true;
  // Split files may reach the same schema through another path; identity decides.
  return target.node !== undefined && deref(ctx, raw, location).node === target.node;
}

function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json(?:;|$)/i.test(mediaType);
}
