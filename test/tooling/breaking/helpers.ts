import type { Change, OpenApiDocument } from '../../../tooling/breaking/types.js';

/** Pointer of the one operation the small specs below declare. */
export const OP = '/paths/~1v1~1patients/post';
export const REQ = `${OP}/requestBody/content/application~1json/schema`;
export const RES = `${OP}/responses/200/content/application~1json/schema`;

type Obj = Record<string, unknown>;

/**
 * A minimal OpenAPI 3.0.3 document with `POST /v1/patients`; `op` overrides the operation,
 * `schemas` fills `components.schemas`, `root` adds or replaces top-level keys.
 */
export function api(op: Obj = {}, schemas: Obj = {}, root: Obj = {}): OpenApiDocument {
  return {
    openapi: '3.0.3',
    info: { title: 'Patient-Care', version: '2026-11-01' },
    paths: {
      '/v1/patients': {
        post: {
          operationId: 'createPatient',
          'x-scopes': ['patients:write'],
          'x-key-kinds': ['secret', 'restricted'],
          responses: { '200': { description: 'OK' } },
          ...op,
        },
      },
    },
    components: { schemas },
    ...root,
  };
}

/** Operation fields for a JSON request body with this schema. */
export function body(schema: unknown): Obj {
  return { requestBody: { required: true, content: { 'application/json': { schema } } } };
}

/** Operation fields for a 200 JSON response with this schema. */
export function ok(schema: unknown, extra: Obj = {}): Obj {
  return {
    responses: {
      '200': { description: 'OK', content: { 'application/json': { schema } }, ...extra },
    },
  };
}

/** An object schema that rejects unknown properties, as the server does. */
export function obj(properties: Obj, required: string[] = [], extra: Obj = {}): Obj {
  return { type: 'object', additionalProperties: false, required, properties, ...extra };
}

/** `kind BREAKING|ok pointer` per change, sorted: a readable, exact comparison. */
export function summarize(changes: Change[]): string[] {
  return changes.map((c) => `${c.kind} ${c.breaking ? 'BREAKING' : 'ok'} ${c.pointer}`).sort();
}
