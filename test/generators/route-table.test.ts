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
    expect(table.routes.map((route) => route.operationId)).toEqual(
      listOperations(document).map((operation) => operation.operationId),
    );
  });
});
