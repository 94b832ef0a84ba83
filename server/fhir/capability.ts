/**
 * The CapabilityStatement (`GET /fhir/R4/metadata`), made from the route table so it lists
 * exactly the interactions and search parameters the spec describes and the service serves:
 * an operation added to the spec appears here, one removed disappears.
 */
import type { RouteDefinition } from '../../contract/route-types.js';
import type { components } from '../../generated/types.js';
import { FHIR_BASE } from './plugin.js';

export type CapabilityStatement = components['schemas']['FhirCapabilityStatement'];

/** FHIR's search parameter type of each parameter we serve. */
const SEARCH_TYPES: Readonly<Record<string, SearchType>> = {
  _id: 'token',
  identifier: 'token',
  family: 'string',
  given: 'string',
  birthdate: 'date',
  gender: 'token',
  email: 'token',
  phone: 'token',
  patient: 'reference',
  date: 'date',
  status: 'token',
  created: 'date',
  request: 'reference',
};

/** Result parameters, not search criteria. */
const CONTROL = new Set(['_count', '_cursor', '_format']);

type ResourceCapability = CapabilityStatement['rest'][number]['resource'][number];
type SearchType = ResourceCapability['searchParam'][number]['type'];

/** The statement for the FHIR routes of `routes`; `date` is the build's API version date. */
export function capabilityStatement(
  routes: readonly RouteDefinition[],
  date: string,
): CapabilityStatement {
  const resources = new Map<string, ResourceCapability>();
  for (const route of routes) {
    const match = /^\/fhir\/R4\/([A-Z][A-Za-z]+)(\/\{id\})?$/.exec(route.path);
    const type = match?.[1];
    if (match === null || type === undefined) continue;
    let resource = resources.get(type);
    if (resource === undefined) {
      resource = {
        type,
        interaction: [],
        versioning: 'versioned',
        readHistory: false,
        updateCreate: false,
        conditionalRead: 'not-match',
        searchParam: [],
      };
      resources.set(type, resource);
    }
    const code: ResourceCapability['interaction'][number]['code'] =
      match[2] !== undefined ? 'read' : route.method === 'POST' ? 'create' : 'search-type';
    resource.interaction.push({ code });
    if (code !== 'search-type') continue;
    for (const param of route.parameters) {
      if (param.in !== 'query' || CONTROL.has(param.name)) continue;
      resource.searchParam.push({ name: param.name, type: SEARCH_TYPES[param.name] ?? 'string' });
    }
  }
  const ordered = [...resources.values()].sort((a, b) => a.type.localeCompare(b.type));
  for (const resource of ordered) resource.interaction.sort((a, b) => a.code.localeCompare(b.code));
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date,
    kind: 'instance',
    software: { name: 'Patient-Care API' },
    implementation: { description: `Patient-Care API FHIR R4 endpoint (${FHIR_BASE})` },
    fhirVersion: '4.0.1',
    format: ['json'],
    rest: [{ mode: 'server', resource: ordered }],
  };
}
