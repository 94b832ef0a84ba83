/**
 * The appointment resource (docs/design.md#resources): the place to change what an
 * appointment is to the storage, the lists and searches, the audit trail and the FHIR face.
 * The state machine is server/domain/appointment-status.ts; the FHIR fields,
 * server/fhir/mapping/appointment.ts.
 */
import type { components, Readable } from '../../generated/types.js';
import { dateRange } from '../fhir/search/date-range.js';
import { type CreatedRange, equals, within } from '../sql/criteria.js';
import { PATIENT_LINK } from './patient.js';
import { idSearch, resource } from './resource.js';

/** An appointment as the API returns it (schema `Appointment`). */
export type ApiAppointment = Readable<components['schemas']['Appointment']>;

/** An appointment as stored: the API shape with `start`/`end` in unix seconds. */
export type StoredAppointment = Omit<ApiAppointment, 'start' | 'end'> & {
  start: number | null;
  end: number | null;
};

type FhirAppointmentStatus = components['schemas']['FhirAppointment']['status'];

/** Every appointment status, in the order of the happy path. */
export const APPOINTMENT_STATUSES = [
  'proposed',
  'pending',
  'booked',
  'arrived',
  'checked_in',
  'fulfilled',
  'cancelled',
  'noshow',
  'entered_in_error',
] as const;

export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];

/** The value type of each criterion appointment lists and searches filter on. */
export interface AppointmentCriteria {
  id: string;
  patient: string;
  practitioner: string;
  status: string;
  start: CreatedRange;
}

/** The FHIR status of ours: the same words, `-` for `_` (`checked_in` is `checked-in`). */
export function fhirAppointmentStatus(status: AppointmentStatus): FhirAppointmentStatus {
  return status.replaceAll('_', '-') as FhirAppointmentStatus;
}

/** Our status of a FHIR one, or `undefined` (`waitlist` has none). */
export function storedAppointmentStatus(status: string): AppointmentStatus | undefined {
  const ours = status.replaceAll('-', '_');
  return APPOINTMENT_STATUSES.find((known) => known === ours);
}

const PREFIX = 'appt';

export const APPOINTMENT = resource<StoredAppointment, AppointmentCriteria>()({
  name: 'appointment',
  table: 'appointments',
  prefix: PREFIX,
  readScope: 'appointments:read',
  audited: ['id', 'patient'],
  events: ['appointment.created', 'appointment.updated', 'appointment.cancelled'],
  columns: [
    PATIENT_LINK.column,
    { name: 'status', value: (a) => a.status },
    { name: 'start_at', value: (a) => a.start ?? null },
    { name: 'practitioner_id', value: (a) => a.practitioner_id ?? null },
  ],
  criteria: {
    id: { column: 'id', op: equals },
    patient: PATIENT_LINK.criterion,
    practitioner: { column: 'practitioner_id', op: equals },
    // Appointments without a start never match a range on it.
    start: { column: 'start_at', op: within },
    status: { column: 'status', op: equals },
  },
  listQuery: { patient: 'patient', practitioner_id: 'practitioner', status: 'status' },
  references: ['patient', 'practitioner_id'],
  // FHIR Appointment: search by `_id`, patient, date (the start) and status.
  fhir: [
    {
      type: 'Appointment',
      search: {
        _id: idSearch(PREFIX),
        patient: PATIENT_LINK.search,
        // A status we do not keep (waitlist) matches nothing.
        status: {
          criterion: 'status',
          type: 'token',
          parse: (text: string) => storedAppointmentStatus(text) ?? null,
        },
        date: {
          criterion: 'start',
          type: 'date',
          repeated: true,
          parse: (values: readonly string[]) => dateRange(values, 'date'),
        },
      },
    },
  ],
});
