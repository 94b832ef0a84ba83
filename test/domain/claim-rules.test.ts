import { describe, expect, it } from 'vitest';
import {
  assertClaimRules,
  type ClaimCreateParams,
  isCurrency,
  isValidNpi,
  luhnCheckDigit,
  priceLineItems,
} from '../../server/domain/claim-rules.js';
import { thrown } from '../support/thrown.js';

function claim(overrides: Partial<ClaimCreateParams> = {}): ClaimCreateParams {
  return {
    patient: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
    billing_type: 'insurance',
    type: 'professional',
    billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
    insurance: { payer_id: '60054', member_id: 'W123456789', group_number: null },
    diagnoses: [
      { sequence: 1, system: 'icd10', code: 'I10' },
      { sequence: 2, system: 'icd10', code: 'E11.9' },
    ],
    line_items: [
      {
        sequence: 1,
        procedure_code: '99213',
        diagnosis_sequences: [1, 2],
        service_date: '2026-11-04',
        quantity: 1,
        unit_amount: 12500,
      },
      {
        sequence: 2,
        procedure_code: 'G0008',
        diagnosis_sequences: [2],
        service_date: '2026-11-04',
        quantity: 3,
        unit_amount: 4500,
      },
    ],
    currency: 'usd',
    ...overrides,
  };
}

describe('NPI check digit', () => {
  // Worked by hand with the NPI standard's shortcut: Luhn over the nine digits plus 24.
  it.each([
    { npi: '1234567893', valid: true },
    { npi: '9876543213', valid: true },
    { npi: '0000000006', valid: true },
    { npi: '1234567890', valid: false },
    { npi: '1234567894', valid: false },
    { npi: '9876543212', valid: false },
    { npi: '123456789', valid: false },
    { npi: '12345678931', valid: false },
    { npi: '12345678a3', valid: false },
  ])('$npi valid: $valid', ({ npi, valid }) => {
    expect(isValidNpi(npi)).toBe(valid);
  });

  it.each([
    { digits: '7992739871', want: 3 },
    { digits: '80840123456789', want: 3 },
  ])('Luhn check digit of $digits is $want', ({ digits, want }) => {
    expect(luhnCheckDigit(digits)).toBe(want);
  });
});

describe('currency', () => {
  it.each([
    { code: 'usd', valid: true },
    { code: 'eur', valid: true },
    { code: 'jpy', valid: true },
    { code: 'USD', valid: false },
    { code: 'usb', valid: false },
    { code: 'us', valid: false },
  ])('$code valid: $valid', ({ code, valid }) => {
    expect(isCurrency(code)).toBe(valid);
  });
});

describe('assertClaimRules', () => {
  it('accepts a well-formed insurance claim and a self-pay claim', () => {
    expect(() => assertClaimRules(claim())).not.toThrow();
    expect(() =>
      assertClaimRules(claim({ billing_type: 'self_pay', insurance: null })),
    ).not.toThrow();
    const { insurance: _, ...withoutInsurance } = claim({ billing_type: 'self_pay' });
    expect(() => assertClaimRules(withoutInsurance)).not.toThrow();
  });

  const base = claim();
  const [line1, line2] = base.line_items as [
    ClaimCreateParams['line_items'][0],
    ClaimCreateParams['line_items'][0],
  ];
  it.each<{ name: string; given: Partial<ClaimCreateParams>; param: string }>([
    { name: 'insurance missing', given: { insurance: undefined }, param: 'insurance' },
    { name: 'insurance null', given: { insurance: null }, param: 'insurance' },
    {
      name: 'insurance on self_pay',
      given: { billing_type: 'self_pay' },
      param: 'insurance',
    },
    {
      name: 'NPI check digit',
      given: { billing_provider: { npi: '1234567890', tax_id: '12-3456789' } },
      param: 'billing_provider[npi]',
    },
    {
      name: 'ICD-10-CM shape (U codes are not CM)',
      given: { diagnoses: [{ sequence: 1, system: 'icd10', code: 'U07.1' }] },
      param: 'diagnoses[0][code]',
    },
    {
      name: 'duplicate diagnosis sequence',
      given: {
        diagnoses: [
          { sequence: 1, system: 'icd10', code: 'I10' },
          { sequence: 1, system: 'icd10', code: 'E11.9' },
        ],
      },
      param: 'diagnoses[1][sequence]',
    },
    {
      name: 'diagnosis sequence gap',
      given: {
        diagnoses: [
          { sequence: 1, system: 'icd10', code: 'I10' },
          { sequence: 3, system: 'icd10', code: 'E11.9' },
        ],
        line_items: [{ ...line1, diagnosis_sequences: [1] }],
      },
      param: 'diagnoses[1][sequence]',
    },
    {
      name: 'procedure code shape',
      given: { line_items: [{ ...line1, procedure_code: 'W1234' }] },
      param: 'line_items[0][procedure_code]',
    },
    {
      name: 'reference to a missing diagnosis',
      given: { line_items: [line1, { ...line2, diagnosis_sequences: [2, 7] }] },
      param: 'line_items[1][diagnosis_sequences][1]',
    },
    {
      name: 'duplicate line sequence',
      given: { line_items: [line1, { ...line2, sequence: 1 }] },
      param: 'line_items[1][sequence]',
    },
    {
      name: 'line sequence gap',
      given: { line_items: [line1, { ...line2, sequence: 5 }] },
      param: 'line_items[1][sequence]',
    },
    { name: 'unknown currency', given: { currency: 'xyz' }, param: 'currency' },
  ])('$name → parameter_invalid ($param)', ({ given, param }) => {
    const error = thrown(() => assertClaimRules({ ...base, ...given }));
    expect(error.code).toBe('parameter_invalid');
    expect(error.statusCode).toBe(400);
    expect(error.param).toBe(param);
  });
});

describe('priceLineItems', () => {
  it('computes each amount and the total in minor units', () => {
    const { lineItems, amountTotal } = priceLineItems(claim().line_items);
    expect(lineItems.map((l) => l.amount)).toEqual([12500, 13500]);
    expect(amountTotal).toBe(26000);
    expect(lineItems[0]?.modifiers).toEqual([]);
  });

  it('keeps modifiers and refuses a total past the safe integer range', () => {
    const line = claim().line_items[0]!;
    expect(priceLineItems([{ ...line, modifiers: ['25'] }]).lineItems[0]?.modifiers).toEqual([
      '25',
    ]);
    const huge = { ...line, quantity: 2 ** 30, unit_amount: 2 ** 30 };
    const error = thrown(() =>
      priceLineItems([huge, { ...huge, sequence: 2 }, huge, huge, huge, huge, huge, huge, huge]),
    );
    expect(error.code).toBe('parameter_invalid');
    expect(error.param).toMatch(/^line_items\[\d\]\[quantity\]$/);
  });

  it('stays exact at the largest total the schema allows', () => {
    const line = { ...claim().line_items[0]!, quantity: 9999, unit_amount: 100_000_000 };
    const lines = Array.from({ length: 50 }, (_, i) => ({ ...line, sequence: i + 1 }));
    expect(priceLineItems(lines).amountTotal).toBe(50 * 9999 * 100_000_000);
  });
});
