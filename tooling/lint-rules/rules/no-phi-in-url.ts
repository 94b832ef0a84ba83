import type { Oas3Rule } from '@redocly/openapi-core';
import {
  effectiveParameters,
  locationKey,
  pathOperationsVisitor,
  type SpecNode,
} from '../lib/nodes.js';
import { phiWord } from '../lib/phi-words.js';
import { FHIR_BASE_PATH, FHIR_SEARCH_PHI_EXTENSION, isFhirPath } from '../lib/vocabulary.js';

/**
 * `patient-care/no-phi-in-url`: no query or path parameter may carry PHI. URLs end up in
 * access logs, proxies and browser history, so patient lookups by name, birth date, contact
 * detail or identifier go in a POST body (`POST /v1/patients/search`). Properties of object
 * (deepObject) query parameters count too, since they are serialized as `param[prop]`.
 *
 * One exception: FHIR search defines `family`, `birthdate`, … as query parameters, so a query
 * parameter of a `/fhir/R4` operation marked `x-fhir-search-phi: true` may carry PHI (the
 * service never logs query strings nor audits search values). The mark anywhere else is
 * reported, so it cannot become a way around the rule for `/v1`.
 */
export const NoPhiInUrl: Oas3Rule = () => {
  const checked = new Set<string>();
  return pathOperationsVisitor(({ operation, ctx, label, path, pathItem, pathItemLocation }) => {
    const params = effectiveParameters(ctx, operation, ctx.location, pathItem, pathItemLocation);
    for (const param of params) {
      const { node } = param;
      if (node.in !== 'query' && node.in !== 'path') continue;
      if (typeof node.name !== 'string') continue;
      // A shared parameter is reported once, where it is defined.
      if (param.viaRef) {
        const key = locationKey(param.location);
        if (checked.has(key)) continue;
        checked.add(key);
      }
      if (node[FHIR_SEARCH_PHI_EXTENSION] === true) {
        if (node.in === 'query' && isFhirPath(path)) continue;
        ctx.report({
          message: `Parameter "${node.name}" of ${label} is marked ${FHIR_SEARCH_PHI_EXTENSION}, which only a query parameter of a ${FHIR_BASE_PATH} operation may be (FHIR search defines it in the URL). Remove the mark and take the value in a POST request body.`,
          location: param.location.child([FHIR_SEARCH_PHI_EXTENSION]),
        });
        continue;
      }
      for (const name of urlNames(node)) {
        const word = phiWord(name);
        if (!word) continue;
        ctx.report({
          message: `${node.in === 'query' ? 'Query' : 'Path'} parameter "${name}" of ${label} looks like PHI (the word "${word}"). PHI must never appear in URLs, which are logged and cached: take it in a POST request body instead (as POST /v1/patients/search does), or rename the parameter if it is not patient data.`,
          location: param.location.child(['name']),
        });
      }
    }
  });
};

/** The names a parameter puts into the URL: its own, plus `name[prop]` for object properties. */
function urlNames(param: SpecNode): string[] {
  const names: string[] = [param.name];
  const properties = param.schema?.properties;
  if (properties && typeof properties === 'object') {
    for (const prop of Object.keys(properties)) names.push(`${param.name}[${prop}]`);
  }
  return names;
}
