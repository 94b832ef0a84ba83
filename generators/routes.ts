/**
 * `routes.ts`: the route table the server registers, one entry per Operation Object (OpenAPI
 * 3.0.3 §4.7.10), with `x-scopes`/`x-key-kinds`, parameter serialisation (§4.7.12 style/explode)
 * and JSON Schemas for every request part and response body (§4.7.24 via `json-schema.ts`);
 * `componentSchemas`, the converted Components Object schemas (§4.7.7) route schemas `$ref`; and
 * `OperationTypes`, per operation the handler's request and per-status reply types, taken from
 * `types.ts` so both share one source. The contract is `contract/route-types.ts`.
 */
import type { OpenApiDocument } from '../contract/openapi-document.js';
import type { ConvertedComponent } from '../tooling/openapi/json-schema.js';
import { camelCase, uniqueNames } from '../tooling/openapi/names.js';
import type { OperationModel, ParameterModel } from '../tooling/openapi/operations.js';
import { literal, propertyKey } from './names.js';
import { printValue } from './print.js';
import { buildRouteTable } from './route-table.js';

export interface RoutesOptions {
  /** Import specifier of `contract/route-types.ts` as seen from the generated file. */
  routeTypesImport: string;
  /** Import specifier of the generated `types.ts`. */
  typesImport: string;
}

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
  const { components, routes } = buildRouteTable(document, operations);
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
    const definition = routes[index];
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
  // Joined, not spread into `push`: Microsoft Graph's ~140,000 type lines overflow the stack
  // as call arguments.
  return `${[...lines, ...operationTypes(operations)].join('\n')}\n`;
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
