/**
 * The route table as data: one `RouteDefinition` per Operation Object (OpenAPI 3.0.3 §4.7.10),
 * with `x-scopes`/`x-key-kinds`, parameter serialisation (§4.7.12 style/explode) and JSON Schemas
 * for every request part and response body (§4.7.24 via `json-schema.ts`), and the converted
 * Components Object schemas (§4.7.7) they `$ref`. `routes.ts` prints it into
 * `generated/routes.ts`; the dev loop hands the same data to the running service, so the two
 * cannot disagree and nothing is printed only to be evaluated again.
 * @see https://spec.openapis.org/oas/v3.0.3#operation-object
 */

import type { OpenApiDocument } from '../contract/openapi-document.js';
import type {
  HttpMethod,
  JsonSchema,
  RouteDefinition,
  RouteSchemas,
} from '../contract/route-types.js';
import { assertOpenApi30 } from '../tooling/openapi/document.js';
import {
  type ConvertedComponent,
  componentSchemaId,
  convertComponentSchemas,
  convertSchema,
  type Direction,
  directionalComponents,
} from '../tooling/openapi/json-schema.js';
import {
  listOperations,
  type OperationModel,
  type ParameterModel,
} from '../tooling/openapi/operations.js';

/** The route table of a document: its converted component schemas and one route per operation. */
export interface RouteTable {
  /** Sorted by name; each `schema` carries its `$id`. */
  components: ConvertedComponent[];
  /** In the order of `operations`. */
  routes: RouteDefinition[];
}

type Convert = (schema: unknown, direction: Direction, pointer: string) => JsonSchema;

/**
 * Builds the route table for `operations` of `document` (the model's walk of it).
 *
 * @example buildRouteTable(doc, listOperations(doc)).routes[0].url // '/v1/patients'
 */
export function buildRouteTable(
  document: OpenApiDocument,
  operations: readonly OperationModel[],
): RouteTable {
  const directional = directionalComponents(document);
  const componentId = (name: string, direction: Direction) =>
    componentSchemaId(name, directional.has(name) ? direction : null);
  const convert: Convert = (schema, direction, pointer) =>
    convertSchema(schema, { direction, document, componentId }, pointer);
  const components = convertComponentSchemas(document, { componentId });
  return { components, routes: operations.map((operation) => routeDefinition(operation, convert)) };
}

function routeDefinition(operation: OperationModel, convert: Convert): RouteDefinition {
  const byLocation = (location: ParameterModel['in']) =>
    operation.parameters.filter((parameter) => parameter.in === location);
  const parameterSchema = (list: ParameterModel[], lowerCase: boolean, closed: boolean) => {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const parameter of list) {
      const name = lowerCase ? parameter.name.toLowerCase() : parameter.name;
      properties[name] = convert(parameter.schema, 'request', `${parameter.pointer}/schema`);
      if (parameter.required) required.push(name);
    }
    return {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...(closed ? { additionalProperties: false } : {}),
    };
  };
  const path = byLocation('path');
  const query = byLocation('query');
  const headers = byLocation('header');
  const body = operation.requestBody;
  const response: Record<string, JsonSchema> = {};
  for (const entry of operation.responses) {
    if (entry.media?.schema === undefined) continue;
    response[entry.status] = convert(entry.media.schema, 'response', `${entry.pointer}/content`);
  }
  // Key order is the printed order: request parts, then `response`.
  const schemas: RouteSchemas = {
    ...(path.length > 0 ? { params: parameterSchema(path, false, false) } : {}),
    ...(query.length > 0 ? { querystring: parameterSchema(query, false, true) } : {}),
    ...(headers.length > 0 ? { headers: parameterSchema(headers, true, false) } : {}),
    ...(body && body.media.schema !== undefined
      ? { body: convert(body.media.schema, 'request', `${body.pointer}/content`) }
      : {}),
    response,
  };
  return {
    operationId: operation.operationId,
    method: operation.method.toUpperCase() as HttpMethod,
    path: operation.path,
    url: operation.path.replace(/\{([^}]+)\}/g, ':$1'),
    tags: operation.tags,
    summary: operation.summary,
    scopes: operation.scopes,
    keyKinds: operation.keyKinds,
    // Only when set, so route tables of specs without public operations are unchanged.
    ...(operation.public ? { public: true } : {}),
    bodyRequired: body?.required ?? false,
    bodyMediaType: body?.media.mediaType ?? null,
    parameters: operation.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      style: p.style,
      explode: p.explode,
    })),
    schemas,
  };
}

/**
 * What the service registers for `document` (its routes and the component schemas they
 * `$ref`), as `generated/routes.ts` prints it: the dev loop, the gate's replay and each older
 * version's table in the dev loop all build it here.
 * @throws DocumentError for what the generators refuse (not OpenAPI 3.0, a strict-model error).
 */
export function routeTableOf(document: Record<string, unknown>): {
  routes: RouteTable['routes'];
  componentSchemas: RouteTable['components'][number]['schema'][];
} {
  assertOpenApi30(document);
  const { routes, components } = buildRouteTable(document, listOperations(document));
  return { routes, componentSchemas: components.map((component) => component.schema) };
}
