/**
 * The claim resource (docs/design.md#resources): the place to change what a claim is to the
 * storage, the lists and searches, the audit trail and its two FHIR faces, Claim and
 * ClaimResponse (the clearinghouse's answer, which has the claim's id). The state machine is
 * server/domain/claim-status.ts; the FHIR fields, server/fhir/mapping/claim.ts and
 * claim-response.ts.
 */
import type { Claim } from '../domain/claim-build.js';
import { CLAIM_STATUSES, type ClaimStatus } from '../domain/claim-status.js';
import { dateRange } from '../fhir/search/date-range.js';
import { referenceParam } from '../fhir/search/token.js';
import { BY_ID, oneOf, STATUS } from '../repos/criteria.js';
import { PATIENT_LINK } from './patient.js';
import type { FhirFace, Resource } from './resource.js';

/** A claim as stored and returned (schema `Claim`). */
export type StoredClaim = Claim;

/** The criteria claim lists and searches filter on. */
export type ClaimCriterion = 'id' | 'patient' | 'status' | 'statuses';

export const CLAIM: Resource<StoredClaim, ClaimCriterion> = {
  name: 'claim',
  table: 'claims',
  prefix: 'clm',
  columns: [
    PATIENT_LINK.column,
    { name: 'appointment_id', value: (c) => c.appointment ?? null, fixed: true },
    STATUS.column,
  ],
  criteria: {
    id: BY_ID,
    patient: PATIENT_LINK.criterion,
    status: STATUS.criterion,
    statuses: { column: 'status', op: oneOf },
  },
  listCriteria: ['patient', 'status'],
  audited: ['id', 'patient'],
  events: CLAIM_STATUSES.map((status) => `claim.${status}` as const),
};

/** FHIR Claim.status: every claim not cancelled is `active` (its progress is the response's). */
export function fhirClaimStatus(status: ClaimStatus): 'active' | 'cancelled' {
  return status === 'cancelled' ? 'cancelled' : 'active';
}

/** Our statuses behind each FHIR Claim status: the inverse of `fhirClaimStatus`. */
function claimStatusesOf(fhirStatus: string): ClaimStatus[] {
  return CLAIM_STATUSES.filter((status) => fhirClaimStatus(status) === fhirStatus);
}

/** FHIR Claim: search by patient, status and created. */
export const CLAIM_FHIR: FhirFace<StoredClaim, ClaimCriterion> = {
  type: 'Claim',
  search: {
    patient: PATIENT_LINK.search,
    status: { criterion: 'statuses', parse: claimStatusesOf },
    created: { criterion: 'created', parse: (values: string[]) => dateRange(values, 'created') },
  },
};

/** Whether a claim has been answered, so a ClaimResponse exists for it. */
export function hasClaimResponse(claim: Pick<StoredClaim, 'status'>): boolean {
  return claim.status !== 'submitted';
}

/** FHIR ClaimResponse: search by patient and request (the claim). */
export const CLAIM_RESPONSE_FHIR: FhirFace<StoredClaim, ClaimCriterion> = {
  type: 'ClaimResponse',
  search: {
    patient: PATIENT_LINK.search,
    request: { criterion: 'id', parse: (text: string) => referenceParam('Claim', text) },
  },
  always: { statuses: CLAIM_STATUSES.filter((status) => hasClaimResponse({ status })) },
  exists: hasClaimResponse,
};
