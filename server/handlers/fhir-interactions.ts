/**
 * FHIR R4 read and search of every type we serve, as handlers made per type
 * (server/handlers/fhir-resources.ts and a resource's own module export them) (docs/design.md#fhir-r4,
 * docs/design.md#resources): one handler per interaction, generic over the type's entry in
 * server/fhir/faces.ts (its resource module's table, search parameters and audit fields, and
 * its field table). Reads and searches audit as the `/v1` tags do: the ids of the objects
 * returned and of their patients, never the values searched for. `POST [type]/_search` is the
 * GET search: the FHIR scope has read the form body into the query (server/fhir/plugin.ts), so
 * both answer the same Bundle for the same parameters.
 */

import { auditIdsOf, auditIdsOfText } from '../domain/records.js';
import { searchsetText } from '../fhir/bundle.js';
import { conditionalRead } from '../fhir/conditional-read.js';
import { pageParams } from '../fhir/cursor.js';
import { resourceNotFound } from '../fhir/errors.js';
import {
  type FaceCriteria,
  FHIR_TYPES,
  type FhirType,
  type FhirTypes,
  toFhir,
} from '../fhir/faces.js';
import { type FhirResourceType, fromFhirId } from '../fhir/ids.js';
import { countOnly } from '../fhir/lenient-search.js';
import { RenderCache } from '../fhir/render-cache.js';
import type { CountedPage } from '../repos/pagination.js';
import { getRecord, JSON_TEXT, type RecordQuery, searchRecords } from '../repos/records.js';
import type { StoredJson } from '../repos/rows.js';
import type { SearchParameter } from '../resources/resource.js';
import type { HandlerContext } from './types.js';

type SearchQuery = Readonly<Record<string, unknown>> & { _count?: number; _cursor?: string };

const NOTHING: CountedPage<StoredJson> = { data: [], hasMore: false, total: 0 };

/** Each type's search parameters as `[name, parameter]` pairs, listed once, not per search. */
const SEARCH_PARAMETERS = Object.fromEntries(
  Object.entries(FHIR_TYPES).map(([type, { face }]) => [type, Object.entries(face.search)]),
) as Record<FhirResourceType, [string, SearchParameter<FaceCriteria>][]>;

/** A parameter's value for its parser: the list of values when it repeats, else the text. */
function parsed(parameter: SearchParameter<FaceCriteria>, value: unknown): unknown {
  if (parameter.repeated) return parameter.parse(Array.isArray(value) ? value : [String(value)]);
  return parameter.parse(String(value));
}

/**
 * The stored query of a FHIR search: the page, the face's fixed criteria and each parameter's
 * criterion; `null` when a parameter names nothing we could have (the search matches nothing).
 */
function recordQuery(
  type: FhirResourceType,
  query: SearchQuery,
  livemode: boolean,
): RecordQuery<FaceCriteria> | null {
  const { face } = FHIR_TYPES[type];
  const out: RecordQuery<FaceCriteria> = { livemode, ...pageParams(type, query), ...face.always };
  for (const [name, parameter] of SEARCH_PARAMETERS[type]) {
    const text = query[name];
    if (text === undefined) continue;
    const value = parsed(parameter, text);
    if (value === null) return null;
    out[parameter.criterion] = value;
  }
  return out;
}

/** `GET [type]`: a searchset Bundle of the matches (rendered entries kept by stored text). */
function search<K extends FhirResourceType>(type: K) {
  const { resource }: { resource: FhirType<K>['resource'] } = FHIR_TYPES[type];
  const rendered = new RenderCache(2000);
  const render = (stored: FhirTypes[K]['stored']) => toFhir(type, stored);
  return async (request: { query: SearchQuery }, ctx: HandlerContext) => {
    const q = request.query;
    const summary = countOnly(q);
    const query = recordQuery(type, q, ctx.livemode);
    const page =
      query === null ? NOTHING : await searchRecords(resource, ctx.db, query, summary, JSON_TEXT);
    ctx.audit(auditIdsOfText(resource, page.data));
    return {
      status: 200 as const,
      body: searchsetText(type, q, page, render, rendered, summary),
    };
  };
}

/** `GET [type]/{id}`: the resource, with its version (`304` when the client has it). */
function read<K extends FhirResourceType>(type: K) {
  const { resource, face } = FHIR_TYPES[type];
  return async (
    request: { params: { id: string }; headers: { 'if-none-match'?: string } },
    ctx: HandlerContext,
  ) => {
    const id = fromFhirId(type, request.params.id);
    const stored =
      id === undefined ? undefined : await getRecord(resource, ctx.db, id, ctx.livemode);
    if (id === undefined || stored === undefined || face.exists?.(stored) === false) {
      ctx.audit(id === undefined ? [] : [id], 'not_found');
      throw resourceNotFound(type);
    }
    ctx.audit(auditIdsOf(resource, [stored]));
    return conditionalRead(toFhir(type, stored), request.headers['if-none-match']);
  };
}

/** A type's interactions (exported for a resource whose handlers live in its own module): search (`GET [type]`), the same by `POST [type]/_search`, and read. */
export function interactions<K extends FhirResourceType>(type: K) {
  const bundle = search(type);
  return [bundle, bundle, read(type)] as const;
}
