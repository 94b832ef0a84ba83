/**
 * FHIR R4 Claim (docs/design.md#fhir-r4): read, search by patient, status, created. Audits
 * like the Claims tag: the claims' ids and their patients'.
 */
import { auditIds } from '../fhir/audit-ids.js';
import { searchset } from '../fhir/bundle.js';
import { conditionalRead } from '../fhir/conditional-read.js';
import { pageParams } from '../fhir/cursor.js';
import { resourceNotFound } from '../fhir/errors.js';
import { fromFhirId } from '../fhir/ids.js';
import { countOnly } from '../fhir/lenient-search.js';
import { claimToFhir, type StoredClaim } from '../fhir/mapping/claim.js';
import { dateRange } from '../fhir/search/date-range.js';
import { referenceParam } from '../fhir/search/token.js';
import { getClaim } from '../repos/claims.js';
import { searchClaimsForFhir } from '../repos/fhir-claim-search.js';
import type { AppHandler } from './types.js';

/** Our statuses behind each FHIR Claim status. */
const STATUSES: Readonly<Record<string, readonly string[]>> = {
  active: ['submitted', 'accepted', 'rejected', 'paid', 'partially_paid', 'denied'],
  cancelled: ['cancelled'],
  draft: [],
  'entered-in-error': [],
};

/** GET /fhir/R4/Claim */
export const searchFhirClaims: AppHandler<'searchFhirClaims'> = async (request, ctx) => {
  const q = request.query;
  const summary = countOnly(q);
  const patient = q.patient === undefined ? undefined : referenceParam('Patient', q.patient);
  const page =
    patient === null
      ? { data: [], hasMore: false, total: 0 }
      : await searchClaimsForFhir<StoredClaim>(
          ctx.db,
          {
            livemode: ctx.livemode,
            ...pageParams('Claim', q),
            ...(patient === undefined ? {} : { patient }),
            ...(q.status === undefined ? {} : { statuses: STATUSES[q.status] ?? [] }),
            ...(q.created === undefined ? {} : { created: dateRange(q.created, 'created') }),
          },
          summary,
        );
  ctx.audit(auditIds(page.data));
  return { status: 200, body: searchset('Claim', q, page, claimToFhir, summary) };
};

/** GET /fhir/R4/Claim/{id} */
export const readFhirClaim: AppHandler<'readFhirClaim'> = async (request, ctx) => {
  const id = fromFhirId('Claim', request.params.id);
  const stored =
    id === undefined ? undefined : await getClaim<StoredClaim>(ctx.db, id, ctx.livemode);
  if (id === undefined || stored === undefined) {
    ctx.audit(id === undefined ? [] : [id], 'not_found');
    throw resourceNotFound('Claim');
  }
  ctx.audit([id, stored.patient]);
  return conditionalRead(claimToFhir(stored), request.headers['if-none-match']);
};

/**
 * POST /fhir/R4/Claim/_search: the GET search. The FHIR scope has read the form body into the
 * query (server/fhir/plugin.ts), so both answer the same Bundle for the same parameters.
 */
export const searchFhirClaimsByPost: AppHandler<'searchFhirClaimsByPost'> = (request, ctx) =>
  searchFhirClaims({ ...request, body: undefined }, ctx);
