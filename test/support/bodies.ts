/** Request bodies several suites need as they are: valid, minimal, and free of real PHI. */

/** A valid self-pay professional claim for `patient`: one diagnosis, one line item. */
export function claimBody(patient: string): Record<string, unknown> {
  return {
    patient,
    billing_type: 'self_pay',
    type: 'professional',
    billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
    diagnoses: [{ sequence: 1, system: 'icd10', code: 'I10' }],
    line_items: [
      {
        sequence: 1,
        procedure_code: '99213',
        diagnosis_sequences: [1],
        service_date: '2026-10-30',
        quantity: 1,
        unit_amount: 10000,
      },
    ],
    currency: 'usd',
  };
}
