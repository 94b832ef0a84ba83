/**
 * The route table is data first (generators/route-table.ts): what `generated/routes.ts` prints
 * and what the dev loop hands the service are the same values.
 */
import { describe, expect, it } from 'vitest';
import { componentSchemas, routes } from '../../generated/routes.js';
import { buildRouteTable } from '../../generators/route-table.js';
import { assertOpenApi30 } from '../../tooling/openapi/document.js';
import { listOperations } from '../../tooling/openapi/operations.js';
import { loadSpec } from '../spec/load-spec.js';

describe('buildRouteTable', () => {
  const document = loadSpec();
  assertOpenApi30(document);
  const table = buildRouteTable(document, listOperations(document));

  it('equals the printed table in generated/routes.ts', () => {
    expect(table.routes).toEqual(routes);
    expect(table.components.map((component) => component.schema)).toEqual(componentSchemas);
  });

  it('has one route per operation, in document order', () => {
    // Read off the YAML as written: each path in turn, its operations in the order its methods
    // are written (the spec writes them in OpenAPI's method order), each with its operationId.
    const written = Object.entries(
      document.paths as Record<string, Record<string, unknown>>,
    ).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([key]) => /^(get|put|post|delete|options|head|patch|trace)$/.test(key))
        .map(([method, op]) => [
          (op as { operationId: string }).operationId,
          method.toUpperCase(),
          path,
        ]),
    );
    expect(written.length).toBeGreaterThan(30);
    expect(table.routes.map((r) => [r.operationId, r.method, r.path])).toEqual(written);
    expect(table.routes.slice(0, 3).map((r) => r.operationId)).toEqual([
      'listPatients',
      'createPatient',
      'searchPatients',
    ]);
  });
});
