/**
 * `routes.ts`: the route table the server registers, one entry per Operation Object (OpenAPI
 * 3.0.3 §4.7.10), with `x-scopes`/`x-key-kinds`, parameter serialisation (§4.7.12 style/explode)
 * and JSON Schemas for every request part and response body (§4.7.24 via `json-schema.ts`);
 * `componentSchemas`, the converted Components Object schemas (§4.7.7) route schemas `$ref`; and
 * `OperationTypes`, per operation the handler's request and per-status reply types, taken from
 * `types.ts` so both share one source. The contract is `contract/route-types.ts`.
 */
import type { JsonSchema } from '../contract/route-types.js';
import type { OpenApiDocument } from '../tooling/openapi/document.js';
import {
  type ConvertedComponent,
  componentSchemaId,
  convertComponentSchemas,
  convertSchema,
  type Direction,
  directionalComponents,
} from '../tooling/openapi/json-schema.js';
import { camelCase, uniqueNames } from '../tooling/openapi/names.js';
import type { OperationModel, ParameterModel } from '../tooling/openapi/operations.js';
import { literal, propertyKey } from './names.js';
import { printValue } from './print.js';

export interface RoutesOptions {
  /** Import specifier of `contract/route-types.ts` as seen from the generated file. */
  routeTypesImport: string;
  /** Import specifier of the generated `types.ts`. */
  typesImport: string;
}

type Convert = (schema: unknown, direction: Direction, pointer: string) => JsonSchema;

/**
 * Renders `routes.ts` (without the header line) for the operations of `document`. Constants are
 * named after their schema (`patientSchema`, `patientRequestSchema`) and operation
 * (`listPatientsRoute`) and printed over several lines, so adding a schema or an operation adds
 * its own lines and leaves the others as they were.
 *
 * @example generateRoutes(doc, listOperations(doc), { routeTypesImport: '../contract/route-types.js', typesImport: './types.js' })
 */
export function generateRoutes(
  document: OpenApiDocument,
  operations: readonly OperationModel[],
  options: RoutesOptions,
): string {
  const directional = directionalComponents(document);
  const componentId = (name: string, direction: Direction) =>
    componentSchemaId(name, directional.has(name) ? direction : null);
  const convert: Convert = (schema, direction, pointer) =>
    convertSchema(schema, { direction, document, componentId }, pointer);
  const components = convertComponentSchemas(document, { componentId });
  // Names are claimed schemas first (sorted by name), then operations (document order); a clash
  // (`Pet` and `pet`) takes a number, which only its own kind can shift.
  const names = uniqueNames([
    ...components.map(schemaConstName),
    ...operations.map((operation) => `${camelCase(operation.operationId) || 'operation'}Route`),
  ]);
  const schemaNames = names.slice(0, components.length);
  const routeNames = names.slice(components.length);

  // One typed const per entry, then an array of names: a single array literal of a thousand
  // differently shaped objects makes tsc build their union ("too complex to represent" on
  // GitHub's document); each const is checked against its declared type on its own.
  const lines: string[] = [
    `import type { JsonSchema, RouteDefinition } from ${literal(options.routeTypesImport)};`,
    `import type { paths, Readable, Writable } from ${literal(options.typesImport)};`,
    '',
  ];
  components.forEach((component, index) => {
    const head = `const ${schemaNames[index]}: JsonSchema = `;
    lines.push(`${head}${printValue(component.schema, 0, head.length)};`, '');
  });
  lines.push(
    '/** Every component schema, converted for Ajv; register each with `addSchema` before use. */',
    `export const componentSchemas: readonly JsonSchema[] = [${nameList(schemaNames)}];`,
    '',
  );
  operations.forEach((operation, index) => {
    const head = `const ${routeNames[index]}: RouteDefinition = `;
    const definition = routeDefinition(operation, convert);
    lines.push(
      `/** ${operation.method.toUpperCase()} ${operation.path.replaceAll('*/', '*\\/')} */`,
      `${head}${printValue(definition, 0, head.length)};`,
      '',
    );
  });
  lines.push(
    '/** One entry per operation of the spec, in document order. */',
    `export const routes: readonly RouteDefinition[] = [${nameList(routeNames)}];`,
    '',
  );
  lines.push(...operationTypes(operations));
  return `${lines.join('\n')}\n`;
}

/** `Patient` → `patientSchema`; a directional one → `patientRequestSchema`/`patientResponseSchema`. */
function schemaConstName(component: ConvertedComponent): string {
  const base = camelCase(component.name) || 'component';
  const direction = component.direction === null ? '' : camelCase(`-${component.direction}`);
  return `${base}${direction.charAt(0).toUpperCase()}${direction.slice(1)}Schema`;
}

/** One name a line, so adding a constant adds one line to the list. */
function nameList(names: readonly string[]): string {
  if (names.length === 0) return '';
  return `\n${names.map((name) => `  ${name},`).join('\n')}\n`;
}

function routeDefinition(operation: OperationModel, convert: Convert): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
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
  if (path.length > 0) schemas.params = parameterSchema(path, false, false);
  if (query.length > 0) schemas.querystring = parameterSchema(query, false, true);
  if (headers.length > 0) schemas.headers = parameterSchema(headers, true, false);
  const body = operation.requestBody;
  if (body && body.media.schema !== undefined) {
    schemas.body = convert(body.media.schema, 'request', `${body.pointer}/content`);
  }
  const response: Record<string, JsonSchema> = {};
  for (const entry of operation.responses) {
    if (entry.media?.schema === undefined) continue;
    response[entry.status] = convert(entry.media.schema, 'response', `${entry.pointer}/content`);
  }
  schemas.response = response;
  return {
    operationId: operation.operationId,
    method: operation.method.toUpperCase(),
    path: operation.path,
    url: operation.path.replace(/\{([^}]+)\}/g, ':$1'),
    tags: operation.tags,
    summary: operation.summary,
    scopes: operation.scopes,
    keyKinds: operation.keyKinds,
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
 * `OperationTypes`: indexed access into `paths` (not `operations`, which lacks operations
 * without an `operationId`). Header names are lower-cased because Node delivers them so.
 */
function operationTypes(operations: readonly OperationModel[]): string[] {
  const lines = [
    '/** Per operation: the request parts a handler receives and, per status, the body it may reply. */',
    // A type alias, not an interface: only aliases satisfy HandlerMap's index-signature bound.
    'export type OperationTypes = {',
  ];
  const empty = 'Record<string, never>';
  for (const operation of operations) {
    const op = `paths[${literal(operation.path)}][${literal(operation.method)}]`;
    const has = (location: ParameterModel['in']) =>
      operation.parameters.some((parameter) => parameter.in === location);
    const part = (location: string) => `NonNullable<${op}['parameters'][${literal(location)}]>`;
    lines.push(`  ${propertyKey(operation.operationId)}: {`);
    lines.push(`    params: ${has('path') ? part('path') : empty};`);
    lines.push(`    query: ${has('query') ? part('query') : empty};`);
    const headers = operation.parameters.filter((parameter) => parameter.in === 'header');
    if (headers.length === 0) lines.push(`    headers: ${empty};`);
    else {
      lines.push('    headers: {');
      for (const header of headers) {
        const optional = header.required ? '' : '?';
        lines.push(
          `      ${propertyKey(header.name.toLowerCase())}${optional}: ${part('header')}[${literal(header.name)}];`,
        );
      }
      lines.push('    };');
    }
    const body = operation.requestBody;
    if (body) {
      const content = `NonNullable<${op}['requestBody']>['content'][${literal(body.media.mediaType)}]`;
      lines.push(`    body: Writable<${content}>${body.required ? '' : ' | undefined'};`);
    } else {
      lines.push('    body: undefined;');
    }
    lines.push('    responses: {');
    for (const entry of operation.responses) {
      const status = /^\d+$/.test(entry.status) ? entry.status : literal(entry.status);
      const type = entry.media
        ? `Readable<${op}['responses'][${status}]['content'][${literal(entry.media.mediaType)}]>`
        : 'undefined';
      lines.push(`      ${status}: ${type};`);
    }
    lines.push('    };', '  };');
  }
  lines.push('};');
  return lines;
}
