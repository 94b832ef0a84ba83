/**
 * A claim's adjudication ↔ FHIR R4 ClaimResponse, field by field (docs/design.md#fhir-r4). A
 * ClaimResponse exists once the clearinghouse has answered (every status past `submitted`) and
 * has its claim's id; `request` references the claim. `outcome` is FHIR's coarse word, and
 * `disposition` keeps our status (and the denial reason) so the reverse mapping is exact.
 */
import type { components } from '../../../generated/types.js';
import { fhirClaimStatus, type StoredClaim } from '../../resources/claim.js';
import { FhirError } from '../errors.js';
import { CLAIM_TYPES, PAYER_MEMBERS, SELF_PAY } from './claim.js';
import { coded, codeOf, type FhirCodeableConcept, minorOf, money, notStorable } from './common.js';
import { type FieldMapping, instantField, referenceField } from './fields.js';

type Schemas = components['schemas'];
export type FhirClaimResponse = Schemas['FhirClaimResponse'];
type ClaimStatus = Schemas['ClaimStatus'];

/** HL7's adjudication categories; patient responsibility has none, so it is a text category. */
export const ADJUDICATION = 'http://terminology.hl7.org/CodeSystem/adjudication';
export const PATIENT_RESPONSIBILITY = 'patient responsibility';

const OUTCOMES: Readonly<Record<ClaimStatus, FhirClaimResponse['outcome']>> = {
  submitted: 'queued',
  accepted: 'queued',
  rejected: 'error',
  paid: 'complete',
  partially_paid: 'partial',
  denied: 'complete',
  cancelled: 'complete',
};
const STATUSES = Object.keys(OUTCOMES) as ClaimStatus[];

type Totals = Pick<
  StoredClaim,
  'amount_total' | 'amount_allowed' | 'amount_paid' | 'patient_responsibility'
>;
const TOTALS: readonly [keyof Totals, FhirCodeableConcept][] = [
  ['amount_total', coded(ADJUDICATION, 'submitted')],
  ['amount_allowed', coded(ADJUDICATION, 'eligible')],
  ['amount_paid', coded(ADJUDICATION, 'benefit')],
  ['patient_responsibility', { text: PATIENT_RESPONSIBILITY }],
];

type ResponseElements = Omit<FhirClaimResponse, 'resourceType' | 'id' | 'meta'>;
type Field = FieldMapping<StoredClaim, ResponseElements>;

/** Each stored field and its FHIR elements, both ways. */
export const CLAIM_RESPONSE_FIELDS: readonly Field[] = [
  {
    field: 'status, denial_reason',
    toFhir: (c) => ({
      status: fhirClaimStatus(c.status),
      outcome: OUTCOMES[c.status],
      disposition: c.denial_reason === null ? c.status : `${c.status}: ${c.denial_reason}`,
    }),
    fromFhir: (r) => {
      if (r.disposition === undefined) return {};
      const [status, ...reason] = r.disposition.split(': ');
      if (!STATUSES.includes(status as ClaimStatus)) {
        throw notStorable(
          'ClaimResponse.disposition',
          'must start with one of our claim statuses.',
        );
      }
      return {
        status: status as ClaimStatus,
        denial_reason: reason.length > 0 ? reason.join(': ') : null,
      };
    },
  },
  {
    field: 'type',
    toFhir: (c) => ({ type: coded(CLAIM_TYPES, c.type), use: 'claim' }),
    fromFhir: (r) => {
      const code = codeOf(r.type, CLAIM_TYPES);
      return code === undefined ? {} : { type: code as StoredClaim['type'] };
    },
  },
  referenceField('patient', 'patient', 'Patient', 'ClaimResponse.patient'),
  // Before adjudication (accepted, or cancelled first) the answer dates from the last change.
  instantField(
    'adjudicated_at',
    'created',
    'ClaimResponse.created',
    (c) => c.adjudicated_at ?? c.updated,
  ),
  {
    field: 'insurance (payer)',
    toFhir: (c) => ({
      insurer:
        c.insurance === null
          ? { display: SELF_PAY }
          : {
              identifier: { system: PAYER_MEMBERS, value: c.insurance.payer_id },
              display: `Payer ${c.insurance.payer_id}`,
            },
    }),
    fromFhir: (r) => {
      const payer = r.insurer?.identifier?.value;
      if (r.insurer?.display === SELF_PAY) return { billing_type: 'self_pay' };
      return payer === undefined ? {} : { billing_type: 'insurance' };
    },
  },
  referenceField('id', 'request', 'Claim', 'ClaimResponse.request'),
  {
    field: 'amounts',
    toFhir: (c) => ({
      total: TOTALS.flatMap(([field, category]) => {
        const amount = c[field];
        return amount === null ? [] : [{ category, amount: money(amount, c.currency) }];
      }),
    }),
    fromFhir: (r) => {
      if (r.total === undefined) return {};
      const out: Partial<StoredClaim> = {
        amount_allowed: null,
        amount_paid: null,
        patient_responsibility: null,
      };
      for (const { category, amount } of r.total) {
        const match = TOTALS.find(([, want]) =>
          want.text === undefined
            ? codeOf(category, ADJUDICATION) === want.coding?.[0]?.code
            : category.text === want.text,
        );
        if (match === undefined)
          throw new FhirError(
            422,
            'not-supported',
            'ClaimResponse.total has a category we do not keep.',
          );
        const minor = minorOf(amount);
        out[match[0]] = minor.amount;
        out.currency = minor.currency;
      }
      return out;
    },
  },
];
