/**
 * The CapabilityStatement (`GET /fhir/R4/metadata`), made from the route table so it lists
 * exactly the interactions and search parameters the spec describes and the service serves:
 * an operation added to the spec appears here, one removed disappears. `GET [type]` and
 * `POST [type]/_search` are one interaction (`search-type`) with one list of parameters.
 */
import type { RouteDefinition } from '../../contract/route-types.js';
import { ALL_SCOPES } from '../../contract/scopes.js';
import type { components } from '../../generated/types.js';
import { FHIR_TYPES } from './faces.js';
import type { FhirResourceType } from './ids.js';
import { FHIR_BASE } from './paths.js';

export type CapabilityStatement = components['schemas']['FhirCapabilityStatement'];

/** FHIR's search parameter type of the result parameters every search takes. */
const RESULT_TYPES: Readonly<Record<string, SearchType>> = {
  _count: 'number',
  _summary: 'token',
};

/**
 * FHIR's type of a search parameter of `type`: its face's (server/resources/), or a result
 * parameter's. A parameter in the spec that neither knows is a build error, never `string`.
 */
function searchType(type: string, name: string): SearchType {
  const face = Object.hasOwn(FHIR_TYPES, type) ? FHIR_TYPES[type as FhirResourceType].face : null;
  const found = face?.search[name]?.type ?? RESULT_TYPES[name];
  if (found === undefined)
    throw new Error(`The spec lists FHIR search parameter ${type}?${name}, which no face serves.`);
  return found;
}

/** What the result parameters we list do. */
const DOCUMENTATION: Readonly<Record<string, string>> = {
  _count: 'Entries per page, 1-100, default 10.',
  _summary: 'count only: the Bundle has total and no entries.',
};

/** Parameters that are not for clients to write (`_cursor` comes from `next` links). */
const CONTROL = new Set(['_cursor', '_format']);

/** The code system of `rest.security.service`. */
const SECURITY_SERVICE = 'http://terminology.hl7.org/CodeSystem/restful-security-service';

type ResourceCapability = CapabilityStatement['rest'][number]['resource'][number];
type SearchType = ResourceCapability['searchParam'][number]['type'];

/**
 * How a client authenticates, with the scopes the FHIR routes take (their `x-scopes`) and the
 * types SMART names are accepted for (those served), so a new type's scopes are listed here
 * without a new mention.
 */
function securityText(
  routes: readonly RouteDefinition[],
  resources: readonly ResourceCapability[],
): string {
  const taken = new Set(
    routes.filter((route) => route.path.startsWith(`${FHIR_BASE}/`)).flatMap((r) => r.scopes),
  );
  const scopes = ALL_SCOPES.filter((scope) => taken.has(scope));
  const types = resources.map((resource) => resource.type);
  const named =
    types.length > 1 ? `${types.slice(0, -1).join(', ')} and ${types.at(-1)}` : types[0];
  return `Send an API key as \`Authorization: Bearer <key>\` (secret or restricted keys; test and live modes are separate). Keys carry scopes: ${scopes.join(', ')}; SMART backend-services names are accepted where keys are created (system/<type>.read or .rs, system/<type>.write or .cud, system/<type>.* for ${named ?? 'no type'}) and stored as ours. No OAuth authorization server: keys are issued by the service.`;
}

/**
 * The statement for the FHIR routes of `routes`; `date` is the build's API version date,
 * `base` the absolute FHIR base (`implementation.url`).
 */
export function capabilityStatement(
  routes: readonly RouteDefinition[],
  date: string,
  base: string,
): CapabilityStatement {
  const resources = new Map<string, ResourceCapability>();
  for (const route of routes) {
    const match = /^\/fhir\/R4\/([A-Z][A-Za-z]+)(\/\{id\}|\/_search)?$/.exec(route.path);
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
      match[2] === '/{id}'
        ? 'read'
        : match[2] === '/_search' || route.method === 'GET'
          ? 'search-type'
          : 'create';
    if (resource.interaction.some((i) => i.code === code)) continue;
    resource.interaction.push(
      code === 'search-type'
        ? {
            code,
            documentation: `GET [base]/${type}?params, or POST [base]/${type}/_search with the params as an application/x-www-form-urlencoded body. Unknown parameters are ignored with a warning entry unless Prefer: handling=strict.`,
          }
        : { code },
    );
    if (code !== 'search-type') continue;
    for (const param of route.parameters) {
      if (param.in !== 'query' || CONTROL.has(param.name)) continue;
      const listed: ResourceCapability['searchParam'][number] = {
        name: param.name,
        type: searchType(type, param.name),
      };
      const documentation = DOCUMENTATION[param.name];
      if (documentation !== undefined) listed.documentation = documentation;
      resource.searchParam.push(listed);
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
    implementation: { description: `Patient-Care API FHIR R4 endpoint (${FHIR_BASE})`, url: base },
    fhirVersion: '4.0.1',
    format: ['json'],
    rest: [
      {
        mode: 'server',
        security: {
          // Secret and restricted keys (the FHIR face's) are for servers: no CORS reads.
          cors: false,
          // FHIR's list has no code for an API key; it is sent as an OAuth 2.0 bearer token
          // (RFC 6750), the nearest code (docs/design.md#fhir-r4).
          service: [
            { coding: [{ system: SECURITY_SERVICE, code: 'OAuth' }], text: 'Bearer API key' },
          ],
          description: securityText(routes, ordered),
        },
        resource: ordered,
      },
    ],
  };
}
