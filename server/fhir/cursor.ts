/**
 * `_cursor` (the FHIR id of the last entry of the previous page, from a `next` link) as the
 * repositories' `startingAfter`, and `_count` as their `limit`.
 */
import type { ListParams } from '../repos/pagination.js';
import { FhirError } from './errors.js';
import { type FhirResourceType, fromFhirId } from './ids.js';

/** The page parameters of a FHIR search. */
export function pageParams(
  type: FhirResourceType,
  query: { _count?: number; _cursor?: string },
): Pick<ListParams, 'limit' | 'startingAfter'> {
  const out: Pick<ListParams, 'limit' | 'startingAfter'> = {};
  if (query._count !== undefined) out.limit = query._count;
  if (query._cursor !== undefined) {
    const after = fromFhirId(type, query._cursor);
    if (after === undefined) {
      throw new FhirError(400, 'value', '_cursor must come from a next link of this search.', {
        expression: '_cursor',
      });
    }
    out.startingAfter = after;
  }
  return out;
}
