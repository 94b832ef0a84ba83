import { describe, expect, it } from 'vitest';
import { fromFhir, toFhir } from '../../../server/fhir/faces.js';
import { CLAIM_RESPONSE_FIELDS } from '../../../server/fhir/mapping/claim-response.js';
import { hasClaimResponse, type StoredClaim } from '../../../server/resources/claim.js';
import { CLAIM_ID, PATIENT_ID, storedClaim } from '../fixtures.js';

// The code systems and texts written out, not imported from the mapping under
// test: a wrong constant there must fail here.
const ADJUDICATION = 'http://terminology.hl7.org/CodeSystem/adjudication';
const CLAIM_TYPES = 'http://terminology.hl7.org/CodeSystem/claim-type';
const PAYER_MEMBERS = 'https://patientcare.example/fhir/payer-members';
const SELF_PAY = 'Self-pay';
const PATIENT_RESPONSIBILITY = 'patient responsibility';

const usd = (value: number) => ({ value, currency: 'USD' });
const category = (code: string) => ({ coding: [{ system: ADJUDICATION, code }] });

/** Given stored fields, want FHIR elements; and back (third column; the second when left out). */
type Case = [string, Partial<StoredClaim>, Record<string, unknown>, Partial<StoredClaim>?];
const CASES: readonly Case[] = [
  [
    'status, denial_reason',
    { status: 'paid', denial_reason: null },
    { status: 'active', outcome: 'complete', disposition: 'paid' },
  ],
  [
    'status, denial_reason',
    { status: 'partially_paid', denial_reason: null },
    { status: 'active', outcome: 'partial', disposition: 'partially_paid' },
  ],
  [
    'status, denial_reason',
    { status: 'accepted', denial_reason: null },
    { status: 'active', outcome: 'queued', disposition: 'accepted' },
  ],
  [
    'status, denial_reason',
    { status: 'rejected', denial_reason: 'Bad member id' },
    { status: 'active', outcome: 'error', disposition: 'rejected: Bad member id' },
  ],
  [
    'status, denial_reason',
    { status: 'denied', denial_reason: 'Not covered' },
    { status: 'active', outcome: 'complete', disposition: 'denied: Not covered' },
  ],
  [
    'status, denial_reason',
    { status: 'cancelled', denial_reason: null },
    { status: 'cancelled', outcome: 'complete', disposition: 'cancelled' },
  ],
  [
    'type',
    { type: 'oral' },
    { type: { coding: [{ system: CLAIM_TYPES, code: 'oral' }] }, use: 'claim' },
  ],
  [
    'patient',
    { patient: PATIENT_ID },
    { patient: { reference: 'Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W', type: 'Patient' } },
  ],
  ['adjudicated_at', { adjudicated_at: 1793800004 }, { created: '2026-11-04T13:46:44Z' }],
  [
    'insurance (payer)',
    { billing_type: 'insurance', insurance: { payer_id: '60054', member_id: 'W1' } },
    { insurer: { identifier: { system: PAYER_MEMBERS, value: '60054' }, display: 'Payer 60054' } },
    // The member id is the Claim's (its coverage), not the answer's.
    { billing_type: 'insurance' },
  ],
  [
    'insurance (payer)',
    { billing_type: 'self_pay', insurance: null },
    { insurer: { display: SELF_PAY } },
    { billing_type: 'self_pay' },
  ],
  [
    'id',
    { id: CLAIM_ID },
    { request: { reference: 'Claim/clm-01JD9C3D4E5F6G7H8J9K0M1N2P', type: 'Claim' } },
  ],
  [
    'amounts',
    {
      currency: 'usd',
      amount_total: 25000,
      amount_allowed: 20000,
      amount_paid: 10000,
      patient_responsibility: 10000,
    },
    {
      total: [
        { category: category('submitted'), amount: usd(250) },
        { category: category('eligible'), amount: usd(200) },
        { category: category('benefit'), amount: usd(100) },
        { category: { text: PATIENT_RESPONSIBILITY }, amount: usd(100) },
      ],
    },
  ],
  [
    'amounts',
    {
      currency: 'usd',
      amount_total: 25000,
      amount_allowed: null,
      amount_paid: null,
      patient_responsibility: null,
    },
    { total: [{ category: category('submitted'), amount: usd(250) }] },
  ],
];

function field(name: string) {
  const mapping = CLAIM_RESPONSE_FIELDS.find((f) => f.field === name);
  if (mapping === undefined) throw new Error(`no field ${name}`);
  return mapping;
}

describe('ClaimResponse mapping, field by field', () => {
  it.each(CASES)('%s: stored %j → FHIR', (name, stored, fhir) => {
    expect(field(name).toFhir({ ...storedClaim, ...stored })).toEqual(fhir);
  });

  it.each(CASES)('%s: stored %j ← FHIR', (name, stored, fhir, back) => {
    expect(field(name).fromFhir(fhir)).toEqual(back ?? stored);
  });

  it('covers every field of the table', () => {
    expect(new Set(CASES.map(([name]) => name))).toEqual(
      new Set(CLAIM_RESPONSE_FIELDS.map((f) => f.field)),
    );
  });

  it('exists once the clearinghouse has answered', () => {
    expect(hasClaimResponse({ status: 'submitted' })).toBe(false);
    for (const status of [
      'accepted',
      'rejected',
      'paid',
      'partially_paid',
      'denied',
      'cancelled',
    ] as const) {
      expect(hasClaimResponse({ status })).toBe(true);
    }
  });

  it('has its claim id and reads back to the adjudication', () => {
    const response = toFhir('ClaimResponse', storedClaim);
    expect(response.id).toBe('clm-01JD9C3D4E5F6G7H8J9K0M1N2P');
    expect(fromFhir('ClaimResponse', response)).toMatchObject({
      status: 'partially_paid',
      amount_paid: 10000,
      amount_allowed: 20000,
      patient_responsibility: 10000,
      id: CLAIM_ID,
    });
  });
});
