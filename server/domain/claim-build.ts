/**
 * A new claim from `submitClaim` parameters: the rules checked, the amounts computed by the
 * server, every field present (`null` until adjudication). Pure; the handler checks the
 * patient and appointment in the database and stores it.
 */
import type { components, Readable } from '../../generated/types.js';
import type { NewObjectInfo } from '../resources/resource.js';
import { assertClaimRules, type ClaimCreateParams, priceLineItems } from './claim-rules.js';
import { checkMetadata } from './serialize.js';

/** A claim as stored and returned (schema `Claim`). */
export type Claim = Readable<components['schemas']['Claim']>;

/**
 * Builds the submitted claim, or throws the first rule it breaks (400 `parameter_invalid`
 * naming the field). Amounts come only from `quantity × unit_amount`; the adjudication fields
 * start `null`.
 */
export function buildClaim(params: ClaimCreateParams, info: NewObjectInfo): Claim {
  assertClaimRules(params);
  const metadata = checkMetadata(params.metadata);
  const { lineItems, amountTotal } = priceLineItems(params.line_items);
  const insurance = params.insurance ?? null;
  return {
    id: info.id,
    object: 'claim',
    livemode: info.livemode,
    created: info.nowSeconds,
    updated: info.nowSeconds,
    patient: params.patient,
    appointment: params.appointment ?? null,
    billing_type: params.billing_type,
    type: params.type,
    billing_provider: {
      npi: params.billing_provider.npi,
      tax_id: params.billing_provider.tax_id,
    },
    insurance:
      insurance === null
        ? null
        : {
            payer_id: insurance.payer_id,
            member_id: insurance.member_id,
            group_number: insurance.group_number ?? null,
          },
    diagnoses: params.diagnoses.map((d) => ({
      sequence: d.sequence,
      system: d.system,
      code: d.code,
    })),
    line_items: lineItems,
    currency: params.currency,
    amount_total: amountTotal,
    amount_allowed: null,
    amount_paid: null,
    patient_responsibility: null,
    status: 'submitted',
    denial_reason: null,
    submitted_at: info.nowSeconds,
    adjudicated_at: null,
    metadata: { ...metadata },
  };
}
