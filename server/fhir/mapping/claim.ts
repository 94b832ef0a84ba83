/**
 * Claim ↔ FHIR R4 Claim, field by field (docs/design.md#fhir-r4). The adjudication (amounts
 * allowed and paid, denial) is the ClaimResponse (claim-response.ts). Codes: claim types are
 * HL7's `claim-type` (the same words), diagnoses ICD-10-CM, procedures CPT or HCPCS; money in
 * major units. Not mapped: `appointment` (R4 Claim points at encounters, not appointments),
 * the provider's `tax_id` and the coverage's `group_number` (no element short of contained
 * resources), `metadata`, `livemode`.
 */
import type { components } from '../../../generated/types.js';
import { fhirClaimStatus, type StoredClaim } from '../../resources/claim.js';
import { coded, codeOf, type FhirCodeableConcept, minorOf, money, notStorable } from './common.js';
import { type FieldMapping, instantField, referenceField } from './fields.js';

type Schemas = components['schemas'];
export type FhirClaim = Schemas['FhirClaim'];
type ClaimType = Schemas['ClaimType'];

export const CLAIM_TYPES = 'http://terminology.hl7.org/CodeSystem/claim-type';
export const ICD10_CM = 'http://hl7.org/fhir/sid/icd-10-cm';
export const CPT = 'http://www.ama-assn.org/go/cpt';
export const HCPCS = 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets';
export const NPI = 'http://hl7.org/fhir/sid/us-npi';
const PRIORITIES = 'http://terminology.hl7.org/CodeSystem/processpriority';
/** The namespace of a payer's member ids: `{PAYER_MEMBERS}/{payer_id}`. */
export const PAYER_MEMBERS = 'https://patientcare.example/fhir/payer-members';
/** The coverage display of a `self_pay` claim. */
export const SELF_PAY = 'Self-pay';

/** A procedure code with its system: HCPCS Level II starts with a letter, CPT with a digit. */
function procedure(code: string): FhirCodeableConcept {
  return coded(/^[A-Z]/.test(code) ? HCPCS : CPT, code);
}

type ClaimElements = Omit<FhirClaim, 'resourceType' | 'id' | 'meta'>;
type Field = FieldMapping<StoredClaim, ClaimElements>;

/** Each stored field and its FHIR elements, both ways. */
export const CLAIM_FIELDS: readonly Field[] = [
  {
    field: 'status',
    toFhir: (c) => ({ status: fhirClaimStatus(c.status) }),
    // Only `cancelled` is read back: `active` covers every other status.
    fromFhir: (r) => (r.status === 'cancelled' ? { status: 'cancelled' } : {}),
  },
  {
    field: 'type',
    toFhir: (c) => ({ type: coded(CLAIM_TYPES, c.type) }),
    fromFhir: (r) => {
      if (r.type === undefined) return {};
      const code = codeOf(r.type, CLAIM_TYPES);
      if (code === undefined) throw notStorable('Claim.type', `needs a coding of ${CLAIM_TYPES}.`);
      return { type: code as ClaimType };
    },
  },
  {
    // Every claim of ours is a claim for payment; FHIR requires `use` and `priority`.
    field: '(use, priority)',
    toFhir: () => ({ use: 'claim', priority: coded(PRIORITIES, 'normal') }),
    fromFhir: () => ({}),
  },
  referenceField('patient', 'patient', 'Patient', 'Claim.patient'),
  instantField('created', 'created', 'Claim.created'),
  {
    field: 'billing_provider',
    toFhir: (c) => ({ provider: { identifier: { system: NPI, value: c.billing_provider.npi } } }),
    fromFhir: (r) => {
      if (r.provider === undefined) return {};
      const id = r.provider.identifier;
      if (id?.system !== NPI) throw notStorable('Claim.provider', 'needs an NPI identifier.');
      return { billing_provider: { npi: id.value } };
    },
  },
  {
    field: 'billing_type, insurance',
    toFhir: (c) => {
      const coverage =
        c.insurance === null
          ? { display: SELF_PAY }
          : {
              identifier: {
                system: `${PAYER_MEMBERS}/${c.insurance.payer_id}`,
                value: c.insurance.member_id,
              },
              display: `Payer ${c.insurance.payer_id}`,
            };
      return { insurance: [{ sequence: 1, focal: true, coverage }] };
    },
    fromFhir: (r) => {
      const coverage = r.insurance?.[0]?.coverage;
      if (coverage === undefined) return {};
      if (coverage.display === SELF_PAY) return { billing_type: 'self_pay', insurance: null };
      const id = coverage.identifier;
      if (!id?.system?.startsWith(`${PAYER_MEMBERS}/`)) {
        throw notStorable(
          'Claim.insurance[0].coverage',
          `needs an identifier of ${PAYER_MEMBERS}/{payer}.`,
        );
      }
      return {
        billing_type: 'insurance',
        insurance: { payer_id: id.system.slice(PAYER_MEMBERS.length + 1), member_id: id.value },
      };
    },
  },
  {
    field: 'diagnoses',
    toFhir: (c) => ({
      diagnosis: c.diagnoses.map((d) => ({
        sequence: d.sequence,
        diagnosisCodeableConcept: coded(ICD10_CM, d.code),
      })),
    }),
    fromFhir: (r) =>
      r.diagnosis === undefined
        ? {}
        : {
            diagnoses: r.diagnosis.map((d, n) => {
              const code = codeOf(d.diagnosisCodeableConcept, ICD10_CM);
              if (code === undefined)
                throw notStorable(`Claim.diagnosis[${n}]`, `needs an ${ICD10_CM} code.`);
              return { sequence: d.sequence, system: 'icd10' as const, code };
            }),
          },
  },
  {
    field: 'line_items',
    toFhir: (c) => ({
      item: c.line_items.map((i) => {
        const item: NonNullable<FhirClaim['item']>[number] = {
          sequence: i.sequence,
          diagnosisSequence: [...i.diagnosis_sequences],
          productOrService: procedure(i.procedure_code),
          servicedDate: i.service_date,
          quantity: { value: i.quantity },
          unitPrice: money(i.unit_amount, c.currency),
          net: money(i.amount, c.currency),
        };
        if (i.modifiers.length > 0) item.modifier = i.modifiers.map((m) => coded(CPT, m));
        return item;
      }),
    }),
    fromFhir: (r) =>
      r.item === undefined
        ? {}
        : {
            line_items: r.item.map((i, n) => {
              const code = codeOf(i.productOrService, CPT) ?? codeOf(i.productOrService, HCPCS);
              if (code === undefined || i.servicedDate === undefined || i.unitPrice === undefined) {
                throw notStorable(
                  `Claim.item[${n}]`,
                  'needs a CPT or HCPCS code, servicedDate and unitPrice.',
                );
              }
              const quantity = i.quantity?.value ?? 1;
              const unit = minorOf(i.unitPrice).amount;
              return {
                sequence: i.sequence,
                procedure_code: code,
                modifiers: (i.modifier ?? []).map((m) => codeOf(m, CPT) ?? ''),
                diagnosis_sequences: [...(i.diagnosisSequence ?? [])],
                service_date: i.servicedDate,
                quantity,
                unit_amount: unit,
                amount: i.net === undefined ? unit * quantity : minorOf(i.net).amount,
              };
            }),
          },
  },
  {
    field: 'currency, amount_total',
    toFhir: (c) => ({ total: money(c.amount_total, c.currency) }),
    fromFhir: (r) => {
      if (r.total === undefined) return {};
      const { amount, currency } = minorOf(r.total);
      return { amount_total: amount, currency };
    },
  },
];
