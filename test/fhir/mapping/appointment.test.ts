import { describe, expect, it } from 'vitest';
import { FhirError } from '../../../server/fhir/errors.js';
import { fromFhir, toFhir } from '../../../server/fhir/faces.js';
import {
  APPOINTMENT_FIELDS,
  V2_APPOINTMENT_TYPES,
} from '../../../server/fhir/mapping/appointment.js';
import type { StoredAppointment } from '../../../server/resources/appointment.js';
import { PATIENT_ID, storedAppointment } from '../fixtures.js';

const PATIENT_REF = { reference: 'Patient/pat-01JD7X5K8M9N2P3Q4R5S6T7V8W', type: 'Patient' };

/** Given stored fields, want FHIR elements; and back (third column; the second when left out). */
type Case = [
  string,
  Partial<StoredAppointment>,
  Record<string, unknown>,
  Partial<StoredAppointment>?,
];
const CASES: readonly Case[] = [
  ['status', { status: 'booked' }, { status: 'booked' }],
  ['status', { status: 'checked_in' }, { status: 'checked-in' }],
  ['status', { status: 'entered_in_error' }, { status: 'entered-in-error' }],
  [
    'cancellation_reason',
    { cancellation_reason: 'Patient sick' },
    { cancelationReason: { text: 'Patient sick' } },
  ],
  ['cancellation_reason', { cancellation_reason: null }, {}, {}],
  [
    'appointment_type',
    { appointment_type: 'walkin' },
    { appointmentType: { coding: [{ system: V2_APPOINTMENT_TYPES, code: 'WALKIN' }] } },
  ],
  ['appointment_type', { appointment_type: null }, {}, {}],
  ['reason', { reason: 'Checkup' }, { reasonCode: [{ text: 'Checkup' }] }],
  ['reason', { reason: null }, {}, {}],
  ['start', { start: 1793782800 }, { start: '2026-11-04T09:00:00Z' }],
  ['start', { start: null }, {}, {}],
  ['end', { end: 1793784600 }, { end: '2026-11-04T09:30:00Z' }],
  ['end', { end: null }, {}, {}],
  ['created', { created: 1793577700 }, { created: '2026-11-02T00:01:40Z' }],
  [
    'patient, practitioner, location',
    { patient: PATIENT_ID, practitioner: 'Dr. Lee', location: 'Room 4' },
    {
      participant: [
        { actor: PATIENT_REF, status: 'accepted' },
        { actor: { display: 'Dr. Lee', type: 'Practitioner' }, status: 'accepted' },
        { actor: { display: 'Room 4', type: 'Location' }, status: 'accepted' },
      ],
    },
  ],
  [
    'patient, practitioner, location',
    { patient: PATIENT_ID, practitioner: 'Dr. Lee', location: null },
    {
      participant: [
        { actor: PATIENT_REF, status: 'accepted' },
        { actor: { display: 'Dr. Lee', type: 'Practitioner' }, status: 'accepted' },
      ],
    },
    { patient: PATIENT_ID, practitioner: 'Dr. Lee' },
  ],
];

function field(name: string) {
  const mapping = APPOINTMENT_FIELDS.find((f) => f.field === name);
  if (mapping === undefined) throw new Error(`no field ${name}`);
  return mapping;
}

describe('Appointment mapping, field by field', () => {
  it.each(CASES)('%s: stored %j → FHIR', (name, stored, fhir) => {
    expect(field(name).toFhir({ ...storedAppointment, ...stored })).toEqual(fhir);
  });

  it.each(CASES)('%s: stored %j ← FHIR', (name, stored, fhir, back) => {
    expect(field(name).fromFhir(fhir)).toEqual(back ?? stored);
  });

  it('covers every field of the table', () => {
    expect(new Set(CASES.map(([name]) => name))).toEqual(
      new Set(APPOINTMENT_FIELDS.map((f) => f.field)),
    );
  });

  it('reads a whole appointment back to its stored fields', () => {
    // Not mapped: the object type, the mode, `cancelled_at` and `metadata` (no FHIR element).
    const {
      id: _id,
      object: _o,
      livemode: _l,
      updated: _u,
      cancelled_at: _c,
      metadata: _m,
      ...fields
    } = storedAppointment;
    expect(fromFhir('Appointment', toFhir('Appointment', storedAppointment))).toEqual({
      ...fields,
      cancellation_reason: undefined,
      // No practitioner actor: a FHIR create names none, and the appointment stores null.
      practitioner_id: undefined,
    });
  });

  it.each([
    ['waitlist, which we do not keep', { status: 'waitlist' }],
    ['a start without a zone', { start: '2026-11-04T09:00:00' }],
    [
      'a patient of another server',
      {
        participant: [
          {
            actor: { reference: 'https://x.example/Patient/1', type: 'Patient' },
            status: 'accepted',
          },
        ],
      },
    ],
  ])('refuses %s with 422', (_label, patch) => {
    expect(() =>
      field(
        Object.keys(patch)[0] === 'participant'
          ? 'patient, practitioner, location'
          : Object.keys(patch)[0]!,
      ).fromFhir(patch as never),
    ).toThrow(FhirError);
  });
});
