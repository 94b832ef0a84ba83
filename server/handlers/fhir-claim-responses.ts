/**
 * FHIR R4 ClaimResponse (docs/design.md#fhir-r4): the clearinghouse's answer to a claim, with
 * the claim's id; read, search by patient and request. A claim still `submitted` has none.
 */
import { auditIds } from '../fhir/audit-ids.js';
import { searchset } from '../fhir/bundle.js';
import { conditionalRead } from '../fhir/conditional-read.js';
import { pageParams } from '../fhir/cursor.js';
import { resourceNotFound } from '../fhir/errors.js';
import { fromFhirId } from '../fhir/ids.js';
import { countOnly } from '../fhir/lenient-search.js';
import type { StoredClaim } from '../fhir/mapping/claim.js';
import { claimResponseToFhir, hasClaimResponse } from '../fhir/mapping/claim-response.js';
import { referenceParam } from '../fhir/search/token.js';
import { getClaim } from '../repos/claims.js';
import { searchClaimsForFhir } from '../repos/fhir-claim-search.js';
import type { AppHandler } from './types.js';

/** Every status the clearinghouse has answered. */
const ANSWERED = ['accepted', 'rejected', 'paid', 'partially_paid', 'denied', 'cancelled'];

/** GET /fhir/R4/ClaimResponse */
export const searchFhirClaimResponses: AppHandler<'searchFhirClaimResponses'> = async (
  request,
  ctx,
) => {
  const q = request.query;
  const summary = countOnly(q);
  const patient = q.patient === undefined ? undefined : referenceParam('Patient', q.patient);
  const claim = q.request === undefined ? undefined : referenceParam('Claim', q.request);
  const page =
    patient === null || claim === null
      ? { data: [], hasMore: false, total: 0 }
      : await searchClaimsForFhir<StoredClaim>(
          ctx.db,
          {
            livemode: ctx.livemode,
            ...pageParams('ClaimResponse', q),
            statuses: ANSWERED,
            ...(patient === undefined ? {} : { patient }),
            ...(claim === undefined ? {} : { id: claim }),
          },
          summary,
        );
  ctx.audit(auditIds(page.data));
  return { status: 200, body: searchset('ClaimResponse', q, page, claimResponseToFhir, summary) };
};

/** GET /fhir/R4/ClaimResponse/{id} */
export const readFhirClaimResponse: AppHandler<'readFhirClaimResponse'> = async (request, ctx) => {
  const id = fromFhirId('ClaimResponse', request.params.id);
  const stored =
    id === undefined ? undefined : await getClaim<StoredClaim>(ctx.db, id, ctx.livemode);
  if (id === undefined || stored === undefined || !hasClaimResponse(stored)) {
    ctx.audit(id === undefined ? [] : [id], 'not_found');
    throw resourceNotFound('ClaimResponse');
  }
  ctx.audit([id, stored.patient]);
  return conditionalRead(claimResponseToFhir(stored), request.headers['if-none-match']);
};

/**
 * POST /fhir/R4/ClaimResponse/_search: the GET search. The FHIR scope has read the form body into the
 * query (server/fhir/plugin.ts), so both answer the same Bundle for the same parameters.
 */
export const searchFhirClaimResponsesByPost: AppHandler<'searchFhirClaimResponsesByPost'> = (
  request,
  ctx,
) => searchFhirClaimResponses({ ...request, body: undefined }, ctx);
