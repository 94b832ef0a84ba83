/**
 * The appointment resource (docs/design.md#resources): the place to change what an
 * appointment is to the storage, the lists and searches, the audit trail and the FHIR face.
 * The state machine is server/domain/appointment-status.ts; the FHIR fields,
 * server/fhir/mapping/appointment.ts.
 */
import type { components } from '../../generated/types.js';
import { APPOINTMENT_STATUSES, type AppointmentStatus } from '../domain/appointment-status.js';
import type { StoredAppointment } from '../domain/appointment-times.js';
import { fromFhirId } from '../fhir/ids.js';
import { dateRange } from '../fhir/search/date-range.js';
import { BY_ID, STATUS, within } from '../repos/criteria.js';
import { PATIENT_LINK } from './patient.js';
import type { FhirFace, Resource } from './resource.js';

export type { StoredAppointment };

type FhirAppointmentStatus = components['schemas']['FhirAppointment']['status'];

/** The criteria appointment lists and searches filter on. */
export type AppointmentCriterion = 'id' | 'patient' | 'status' | 'start';

export const APPOINTMENT: Resource<StoredAppointment, AppointmentCriterion> = {
  name: 'appointment',
  table: 'appointments',
  prefix: 'appt',
  audited: ['id', 'patient'],
  events: ['appointment.created', 'appointment.updated', 'appointment.cancelled'],
  columns: [
    PATIENT_LINK.column,
    STATUS.column,
    { name: 'start_at', value: (a) => a.start ?? null },
  ],
  criteria: {
    id: BY_ID,
    patient: PATIENT_LINK.criterion,
    // Appointments without a start never match a range on it.
    start: { column: 'start_at', op: within },
    status: STATUS.criterion,
  },
  listCriteria: ['patient', 'status'],
};

/** The FHIR status of ours: the same words, `-` for `_` (`checked_in` is `checked-in`). */
export function fhirAppointmentStatus(status: AppointmentStatus): FhirAppointmentStatus {
  return status.replaceAll('_', '-') as FhirAppointmentStatus;
}

/** Our status of a FHIR one, or `undefined` (`waitlist` has none). */
export function storedAppointmentStatus(status: string): AppointmentStatus | undefined {
  const ours = status.replaceAll('-', '_');
  return APPOINTMENT_STATUSES.find((known) => known === ours);
}

/** FHIR Appointment: search by `_id`, patient, date (the start) and status. */
export const APPOINTMENT_FHIR: FhirFace<StoredAppointment, AppointmentCriterion> = {
  type: 'Appointment',
  search: {
    _id: { criterion: 'id', parse: (text: string) => fromFhirId('Appointment', text) ?? null },
    patient: PATIENT_LINK.search,
    // A status we do not keep (waitlist) matches nothing.
    status: { criterion: 'status', parse: (text: string) => storedAppointmentStatus(text) ?? null },
    date: { criterion: 'start', parse: (values: string[]) => dateRange(values, 'date') },
  },
};
