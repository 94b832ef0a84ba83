/**
 * The claim resource (docs/design.md#resources): the place to change what a claim is to the
 * storage, the lists and searches, the audit trail and its two FHIR faces, Claim and
 * ClaimResponse (the clearinghouse's answer, which has the claim's id). The state machine is
 * server/domain/claim-status.ts; the FHIR fields, server/fhir/mapping/claim.ts and
 * claim-response.ts.
 */
import type { components, Readable } from '../../generated/types.js';
import { dateRange } from '../fhir/search/date-range.js';
import { equals, oneOf } from '../sql/criteria.js';
import { PATIENT_LINK } from './patient.js';
import { referenceSearch, resource } from './resource.js';

/** A claim as stored and returned (schema `Claim`). */
export type StoredClaim = Readable<components['schemas']['Claim']>;

/** Every claim status. */
export const CLAIM_STATUSES = [
  'submitted',
  'accepted',
  'rejected',
  'paid',
  'partially_paid',
  'denied',
  'cancelled',
] as const;

export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** The value type of each criterion claim lists and searches filter on. */
export interface ClaimCriteria {
  id: string;
  patient: string;
  status: string;
  statuses: readonly string[];
}

/** FHIR Claim.status: every claim not cancelled is `active` (its progress is the response's). */
export function fhirClaimStatus(status: ClaimStatus): 'active' | 'cancelled' {
  return status === 'cancelled' ? 'cancelled' : 'active';
}

/** Our statuses behind each FHIR Claim status: the inverse of `fhirClaimStatus`. */
function claimStatusesOf(fhirStatus: string): ClaimStatus[] {
  return CLAIM_STATUSES.filter((status) => fhirClaimStatus(status) === fhirStatus);
}

/** Whether a claim has been answered, so a ClaimResponse exists for it. */
export function hasClaimResponse(claim: Pick<StoredClaim, 'status'>): boolean {
  return claim.status !== 'submitted';
}

const PREFIX = 'clm';

export const CLAIM = resource<StoredClaim, ClaimCriteria>()({
  name: 'claim',
  table: 'claims',
  prefix: PREFIX,
  readScope: 'billing:read',
  columns: [
    PATIENT_LINK.column,
    { name: 'appointment_id', value: (c) => c.appointment ?? null, fixed: true },
    { name: 'status', value: (c) => c.status },
  ],
  criteria: {
    id: { column: 'id', op: equals },
    patient: PATIENT_LINK.criterion,
    status: { column: 'status', op: equals },
    statuses: { column: 'status', op: oneOf },
  },
  listQuery: { patient: 'patient', status: 'status' },
  audited: ['id', 'patient'],
  events: CLAIM_STATUSES.map((status) => `claim.${status}` as const),
  fhir: [
    // FHIR Claim: search by patient, status and created.
    {
      type: 'Claim',
      search: {
        patient: PATIENT_LINK.search,
        status: { criterion: 'statuses', type: 'token', parse: claimStatusesOf },
        created: {
          criterion: 'created',
          type: 'date',
          repeated: true,
          parse: (values: readonly string[]) => dateRange(values, 'created'),
        },
      },
    },
    // FHIR ClaimResponse: the answer to a claim, with its id; search by patient and request.
    {
      type: 'ClaimResponse',
      search: {
        patient: PATIENT_LINK.search,
        request: referenceSearch('id', 'Claim', PREFIX),
      },
      always: { statuses: CLAIM_STATUSES.filter((status) => hasClaimResponse({ status })) },
      exists: hasClaimResponse,
    },
  ],
});
