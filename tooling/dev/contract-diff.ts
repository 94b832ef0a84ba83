/**
 * What a save changed in the contract, for the one line the loop prints: operations added and
 * removed (by method and path), operations changed, component schemas changed.
 */
import type { ContractPayload } from './messages.js';

export interface ContractChange {
  added: string[];
  removed: string[];
  /** Operations present before and after whose route (parameters, schemas, scopes) changed. */
  changedOperations: number;
  /** Component schemas added, removed or edited. */
  changedSchemas: number;
}

/** Compares two contracts; `before` null means everything is new (the first save). */
export function diffContracts(
  before: ContractPayload | null,
  after: ContractPayload,
): ContractChange {
  const routesBefore = operationMap(before);
  const routesAfter = operationMap(after);
  const added = [...routesAfter.keys()].filter((key) => !routesBefore.has(key));
  const removed = [...routesBefore.keys()].filter((key) => !routesAfter.has(key));
  let changedOperations = 0;
  for (const [key, route] of routesAfter) {
    const old = routesBefore.get(key);
    if (old !== undefined && old !== route) changedOperations += 1;
  }
  const schemasBefore = schemaMap(before);
  const schemasAfter = schemaMap(after);
  let changedSchemas = 0;
  for (const name of new Set([...schemasBefore.keys(), ...schemasAfter.keys()])) {
    if (schemasBefore.get(name) !== schemasAfter.get(name)) changedSchemas += 1;
  }
  return { added, removed, changedOperations, changedSchemas };
}

/** `METHOD /path` → the route as JSON text. */
function operationMap(contract: ContractPayload | null): Map<string, string> {
  const map = new Map<string, string>();
  for (const route of contract?.routes ?? []) {
    map.set(`${route.method} ${route.path}`, JSON.stringify(route));
  }
  return map;
}

/** Component schema name → its text in the bundled document. */
function schemaMap(contract: ContractPayload | null): Map<string, string> {
  const components = contract?.document.components as
    | { schemas?: Record<string, unknown> }
    | undefined;
  return new Map(
    Object.entries(components?.schemas ?? {}).map(([name, schema]) => [
      name,
      JSON.stringify(schema),
    ]),
  );
}
