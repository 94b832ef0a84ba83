/**
 * Walks a spec and inspects the generated modules: every operation, parameter, request body
 * and response status must appear in the types, the route table and the client, with the same
 * shape. Used on our spec and on a fixture that exercises what ours does not.
 */
import { expect } from 'vitest';
import type { RouteDefinition } from '../../../contract/route-types.js';
import { walkSpec } from './spec-walk.js';
import { TypesInspector } from './types-inspector.js';

export interface Artifacts {
  typesText: string;
  routes: readonly RouteDefinition[];
  clientOperations: Record<string, { method: string; path: string; operationId?: string }>;
}

const sorted = (values: Iterable<string>) => [...values].sort();

export function checkArtifacts(document: Record<string, unknown>, artifacts: Artifacts): number {
  const operations = walkSpec(document);
  const types = new TypesInspector(artifacts.typesText);
  expect(artifacts.routes).toHaveLength(operations.length);
  expect(Object.keys(artifacts.clientOperations)).toHaveLength(operations.length);
  expect(sorted(types.paths())).toEqual(sorted(Object.keys(document.paths as object)));

  for (const op of operations) {
    const label = `${op.method.toUpperCase()} ${op.path}`;
    // Route table.
    const route = artifacts.routes.find(
      (r) => r.method === op.method.toUpperCase() && r.path === op.path,
    );
    expect(route, label).toBeDefined();
    if (!route) continue;
    if (op.operationId) expect(route.operationId, label).toBe(op.operationId);
    expect(route.url, label).toBe(op.path.replace(/\{([^}]+)\}/g, ':$1'));
    expect(route.scopes, label).toEqual(op.extensions.scopes ?? []);
    expect(route.keyKinds, label).toEqual(op.extensions.keyKinds ?? null);
    expect(route.parameters.map((p) => `${p.in}:${p.name}:${p.required}`).sort(), label).toEqual(
      op.parameters.map((p) => `${p.in}:${p.name}:${p.required}`).sort(),
    );
    const names = (location: string, lower = false) =>
      sorted(
        op.parameters
          .filter((p) => p.in === location)
          .map((p) => (lower ? p.name.toLowerCase() : p.name)),
      );
    const keys = (schema: unknown) =>
      sorted(
        Object.keys(((schema as { properties?: object } | undefined)?.properties ?? {}) as object),
      );
    expect(keys(route.schemas.params), label).toEqual(names('path'));
    expect(keys(route.schemas.querystring), label).toEqual(names('query'));
    expect(keys(route.schemas.headers), label).toEqual(names('header', true));
    expect(route.bodyRequired, label).toBe(op.body?.required ?? false);
    if (op.body) {
      expect(op.body.mediaTypes, label).toContain(route.bodyMediaType);
      expect(route.schemas.body, label).toBeDefined();
    } else {
      expect(route.bodyMediaType, label).toBeNull();
      expect(route.schemas.body, label).toBeUndefined();
    }
    expect(sorted(Object.keys(route.schemas.response)), label).toEqual(
      sorted(Object.keys(op.content)),
    );

    // Types.
    const typed = types.operation(op.path, op.method);
    expect(typed, label).not.toBeNull();
    for (const parameter of op.parameters) {
      const entry = typed!.parameters[parameter.in]?.[parameter.name];
      expect(entry, `${label} ${parameter.in} ${parameter.name}`).toBeDefined();
      expect(entry!.optional, `${label} ${parameter.name}`).toBe(!parameter.required);
    }
    if (op.body) expect(typed!.requestBody, label).toEqual({ optional: !op.body.required });
    else expect(typed!.requestBody, label).toBeNull();
    expect(sorted(typed!.statuses), label).toEqual(sorted(op.statuses));

    // Client.
    const client = Object.values(artifacts.clientOperations).find(
      (c) => c.method === op.method && c.path === op.path,
    );
    expect(client, label).toBeDefined();
    if (op.operationId) expect(client!.operationId, label).toBe(op.operationId);
  }
  return operations.length;
}
