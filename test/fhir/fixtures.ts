/** Stored records as the repositories return them, for the FHIR mapping and validation tests. */
import type { StoredAppointment } from '../../server/resources/appointment.js';
import type { StoredClaim } from '../../server/resources/claim.js';
import type { StoredPatient } from '../../server/resources/patient.js';

export const PATIENT_ID = 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W';
export const APPOINTMENT_ID = 'appt_01JD8A2B3C4D5E6F7G8H9J0K1M';
export const CLAIM_ID = 'clm_01JD9C3D4E5F6G7H8J9K0M1N2P';

export const storedPatient: StoredPatient = {
  id: PATIENT_ID,
  object: 'patient',
  livemode: false,
  created: 1793577600,
  updated: 1793577660,
  identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: '000123456' }],
  name: { family: 'Rivera', given: ['Ana', 'Lucia'], prefix: ['Dr.'], suffix: [] },
  birth_date: '1987-04-12',
  gender: 'female',
  email: 'ana.rivera@example.com',
  phone: '+14155550123',
  address: {
    line1: '100 Main St',
    line2: null,
    city: 'Springfield',
    state: 'IL',
    postal_code: '62701',
    country: 'US',
  },
  active: true,
  metadata: {},
};

export const storedAppointment: StoredAppointment = {
  id: APPOINTMENT_ID,
  object: 'appointment',
  livemode: false,
  created: 1793577700,
  updated: 1793580000,
  patient: PATIENT_ID,
  practitioner: 'Dr. Lee (family medicine)',
  practitioner_id: null,
  status: 'checked_in',
  start: 1793782800,
  end: 1793784600,
  appointment_type: 'followup',
  reason: 'Blood pressure review',
  location: 'Room 4',
  cancellation_reason: null,
  cancelled_at: null,
  metadata: {},
};

export const storedClaim: StoredClaim = {
  id: CLAIM_ID,
  object: 'claim',
  livemode: false,
  created: 1793800000,
  updated: 1793800004,
  patient: PATIENT_ID,
  appointment: null,
  billing_type: 'insurance',
  type: 'professional',
  billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
  insurance: { payer_id: '60054', member_id: 'PARTIAL000', group_number: null },
  diagnoses: [{ sequence: 1, system: 'icd10', code: 'I10' }],
  line_items: [
    {
      sequence: 1,
      procedure_code: '99213',
      modifiers: ['25'],
      diagnosis_sequences: [1],
      service_date: '2026-11-04',
      quantity: 2,
      unit_amount: 12500,
      amount: 25000,
    },
  ],
  currency: 'usd',
  amount_total: 25000,
  amount_allowed: 20000,
  amount_paid: 10000,
  patient_responsibility: 10000,
  status: 'partially_paid',
  denial_reason: null,
  submitted_at: 1793800000,
  adjudicated_at: 1793800004,
  metadata: {},
};
