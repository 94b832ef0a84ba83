/**
 * Claim search for FHIR (`GET /fhir/R4/Claim` and `/ClaimResponse`, docs/design.md#fhir-r4):
 * the filters of `listClaims` with a set of statuses instead of one (FHIR's `active` is every
 * status but `cancelled`; a ClaimResponse exists for every status but `submitted`), and one
 * claim by id (`ClaimResponse?request=`).
 */
import type { Db } from '../db/types.js';
import type { ListParams } from './pagination.js';
import { type CountedPage, paginateCounted } from './pagination.js';
import { parseData } from './rows.js';

export interface FhirClaimSearchParams extends ListParams {
  livemode: boolean;
  id?: string;
  patient?: string;
  /** Claims in any of these statuses; an empty list matches none. */
  statuses?: readonly string[];
}

/** Claims matching every given criterion, newest first, as stored, and how many match. */
export function searchClaimsForFhir<T>(
  db: Db,
  params: FhirClaimSearchParams,
  countOnly = false,
): Promise<CountedPage<T>> {
  const { statuses } = params;
  return paginateCounted(
    db,
    {
      from: 'claims',
      select: 'data',
      filters: [
        (p) => `livemode = ${p.add(params.livemode)}`,
        (p) => (params.id === undefined ? undefined : `id = ${p.add(params.id)}`),
        (p) => (params.patient === undefined ? undefined : `patient_id = ${p.add(params.patient)}`),
        (p) =>
          statuses === undefined
            ? undefined
            : statuses.length === 0
              ? '1 = 0'
              : `status IN (${statuses.map((s) => p.add(s)).join(', ')})`,
      ],
      list: params,
      map: parseData<T>,
    },
    countOnly,
  );
}
