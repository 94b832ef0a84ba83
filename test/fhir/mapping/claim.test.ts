import { describe, expect, it } from 'vitest';
import { fromFhir, toFhir } from '../../../server/fhir/faces.js';
import {
  CLAIM_FIELDS,
  CLAIM_TYPES,
  CPT,
  HCPCS,
  ICD10_CM,
  NPI,
  PAYER_MEMBERS,
  SELF_PAY,
} from '../../../server/fhir/mapping/claim.js';
import type { FromFhir } from '../../../server/fhir/mapping/fields.js';
import type { StoredClaim } from '../../../server/resources/claim.js';
import { PATIENT_ID, storedClaim } from '../fixtures.js';

const line = storedClaim.line_items[0]!;

/** Given stored fields, want FHIR elements; and back (third column; the second when left out). */
type Case = [string, Partial<StoredClaim>, Record<string, unknown>, FromFhir<StoredClaim>?];
const CASES: readonly Case[] = [
  ['status', { status: 'cancelled' }, { status: 'cancelled' }],
  // Every other status is FHIR's `active`; which one is the ClaimResponse's to say.
  ['status', { status: 'paid' }, { status: 'active' }, {}],
  ['status', { status: 'submitted' }, { status: 'active' }, {}],
  [
    'type',
    { type: 'institutional' },
    { type: { coding: [{ system: CLAIM_TYPES, code: 'institutional' }] } },
  ],
  [
    '(use, priority)',
    {},
    {
      use: 'claim',
      priority: {
        coding: [
          { system: 'http://terminology.hl7.org/CodeSystem/processpriority', code: 'normal' },
        ],
      },
    },
  ],
  [
    'patient',
    { patient: PATIENT_ID },
    { patient: { reference: 'Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W', type: 'Patient' } },
  ],
  ['created', { created: 1793800000 }, { created: '2026-11-04T13:46:40Z' }],
  [
    'billing_provider',
    { billing_provider: { npi: '1234567893', tax_id: '12-3456789' } },
    { provider: { identifier: { system: NPI, value: '1234567893' } } },
    // The tax id has no element of its own in R4 Claim.
    { billing_provider: { npi: '1234567893' } },
  ],
  [
    'billing_type, insurance',
    { billing_type: 'insurance', insurance: { payer_id: '60054', member_id: 'W1' } },
    {
      insurance: [
        {
          sequence: 1,
          focal: true,
          coverage: {
            identifier: { system: `${PAYER_MEMBERS}/60054`, value: 'W1' },
            display: 'Payer 60054',
          },
        },
      ],
    },
  ],
  [
    'billing_type, insurance',
    { billing_type: 'self_pay', insurance: null },
    { insurance: [{ sequence: 1, focal: true, coverage: { display: SELF_PAY } }] },
  ],
  [
    'diagnoses',
    { diagnoses: [{ sequence: 1, system: 'icd10', code: 'E11.9' }] },
    {
      diagnosis: [
        {
          sequence: 1,
          diagnosisCodeableConcept: { coding: [{ system: ICD10_CM, code: 'E11.9' }] },
        },
      ],
    },
  ],
  [
    'line_items',
    { line_items: [line, { ...line, sequence: 2, procedure_code: 'G0008', modifiers: [] }] },
    {
      item: [
        {
          sequence: 1,
          diagnosisSequence: [1],
          productOrService: { coding: [{ system: CPT, code: '99213' }] },
          modifier: [{ coding: [{ system: CPT, code: '25' }] }],
          servicedDate: '2026-11-04',
          quantity: { value: 2 },
          unitPrice: { value: 125, currency: 'USD' },
          net: { value: 250, currency: 'USD' },
        },
        {
          sequence: 2,
          diagnosisSequence: [1],
          productOrService: { coding: [{ system: HCPCS, code: 'G0008' }] },
          servicedDate: '2026-11-04',
          quantity: { value: 2 },
          unitPrice: { value: 125, currency: 'USD' },
          net: { value: 250, currency: 'USD' },
        },
      ],
    },
  ],
  [
    'currency, amount_total',
    { currency: 'usd', amount_total: 25000 },
    { total: { value: 250, currency: 'USD' } },
  ],
  // A currency without a minor unit keeps its amount as it is.
  [
    'currency, amount_total',
    { currency: 'jpy', amount_total: 25000 },
    { total: { value: 25000, currency: 'JPY' } },
  ],
];

function field(name: string) {
  const mapping = CLAIM_FIELDS.find((f) => f.field === name);
  if (mapping === undefined) throw new Error(`no field ${name}`);
  return mapping;
}

describe('Claim mapping, field by field', () => {
  it.each(CASES)('%s: stored %j → FHIR', (name, stored, fhir) => {
    expect(field(name).toFhir({ ...storedClaim, ...stored })).toEqual(fhir);
  });

  it.each(CASES)('%s: stored %j ← FHIR', (name, stored, fhir, back) => {
    expect(field(name).fromFhir(fhir)).toEqual(back ?? stored);
  });

  it('covers every field of the table', () => {
    expect(new Set(CASES.map(([name]) => name))).toEqual(new Set(CLAIM_FIELDS.map((f) => f.field)));
  });

  it('a whole claim reads back to its stored fields but the unmapped ones', () => {
    const back = fromFhir('Claim', toFhir('Claim', storedClaim));
    expect(back).toMatchObject({
      patient: storedClaim.patient,
      type: storedClaim.type,
      diagnoses: storedClaim.diagnoses,
      line_items: storedClaim.line_items,
      amount_total: storedClaim.amount_total,
      currency: storedClaim.currency,
      billing_provider: { npi: storedClaim.billing_provider.npi },
    });
  });
});
