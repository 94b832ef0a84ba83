/**
 * Appointment ↔ FHIR R4 Appointment, field by field (docs/design.md#fhir-r4). The patient, the
 * practitioner and the location are participants: the patient as a reference that resolves,
 * the practitioner as one too when the appointment has a `practitioner_id` (with the `/v1` text
 * as its `display`), else as that text alone, and the location as text (`actor.display`, with
 * `type`).
 * Statuses are FHIR's with `_` for `-` (`checked_in` is `checked-in`). Not mapped: `metadata`,
 * `livemode`, `cancelled_at` (FHIR Appointment has no such element).
 */
import type { components } from '../../../generated/types.js';
import {
  fhirAppointmentStatus,
  type StoredAppointment,
  storedAppointmentStatus,
} from '../../resources/appointment.js';
import { coded, codeOf, idFromReference, notStorable, referenceTo } from './common.js';
import { type FieldMapping, instantField } from './fields.js';

export type FhirAppointment = components['schemas']['FhirAppointment'];
type AppointmentType = NonNullable<StoredAppointment['appointment_type']>;

/** HL7 v2 table 0276, appointment reason codes: `ROUTINE`, `WALKIN`, … */
export const V2_APPOINTMENT_TYPES = 'http://terminology.hl7.org/CodeSystem/v2-0276';
const TYPES: readonly string[] = ['routine', 'walkin', 'checkup', 'followup', 'emergency'];

type AppointmentElements = Omit<FhirAppointment, 'resourceType' | 'id' | 'meta'>;
type Participant = FhirAppointment['participant'][number];
type Field = FieldMapping<StoredAppointment, AppointmentElements>;

function textActor(type: 'Practitioner' | 'Location', display: string): Participant {
  return { actor: { display, type }, status: 'accepted' };
}

/** The practitioner: a reference when the appointment names a practitioner object. */
function practitionerActor(a: StoredAppointment): Participant {
  if (a.practitioner_id === undefined || a.practitioner_id === null)
    return textActor('Practitioner', a.practitioner);
  return {
    actor: { ...referenceTo('Practitioner', a.practitioner_id), display: a.practitioner },
    status: 'accepted',
  };
}

/** Each stored field and its FHIR elements, both ways. */
export const APPOINTMENT_FIELDS: readonly Field[] = [
  {
    field: 'status',
    toFhir: (a) => ({ status: fhirAppointmentStatus(a.status) }),
    fromFhir: (r) => {
      if (r.status === undefined) return {};
      const status = storedAppointmentStatus(r.status);
      if (status === undefined) throw notStorable('Appointment.status', `${r.status} is not kept.`);
      return { status };
    },
  },
  {
    field: 'cancellation_reason',
    toFhir: (a) =>
      a.cancellation_reason === null ? {} : { cancelationReason: { text: a.cancellation_reason } },
    fromFhir: (r) =>
      r.cancelationReason?.text === undefined
        ? {}
        : { cancellation_reason: r.cancelationReason.text },
  },
  {
    field: 'appointment_type',
    toFhir: (a) =>
      a.appointment_type === null
        ? {}
        : { appointmentType: coded(V2_APPOINTMENT_TYPES, a.appointment_type.toUpperCase()) },
    fromFhir: (r) => {
      if (r.appointmentType === undefined) return {};
      const code = codeOf(r.appointmentType, V2_APPOINTMENT_TYPES)?.toLowerCase();
      if (code === undefined || !TYPES.includes(code)) {
        throw notStorable(
          'Appointment.appointmentType',
          `needs a coding of ${V2_APPOINTMENT_TYPES}.`,
        );
      }
      return { appointment_type: code as AppointmentType };
    },
  },
  {
    field: 'reason',
    toFhir: (a) => (a.reason === null ? {} : { reasonCode: [{ text: a.reason }] }),
    fromFhir: (r) =>
      r.reasonCode?.[0]?.text === undefined ? {} : { reason: r.reasonCode[0].text },
  },
  instantField('start', 'start', 'Appointment.start'),
  instantField('end', 'end', 'Appointment.end'),
  instantField('created', 'created', 'Appointment.created'),
  {
    field: 'patient, practitioner, location',
    toFhir: (a) => {
      const participant: Participant[] = [
        { actor: referenceTo('Patient', a.patient), status: 'accepted' },
        practitionerActor(a),
      ];
      if (a.location !== null) participant.push(textActor('Location', a.location));
      return { participant };
    },
    fromFhir: (r) => {
      const out: Partial<StoredAppointment> = {};
      for (const [n, { actor }] of (r.participant ?? []).entries()) {
        const where = `Appointment.participant[${n}].actor`;
        if (actor.type === 'Patient') out.patient = idFromReference('Patient', actor, where);
        else if (actor.type === 'Practitioner' && actor.display) {
          out.practitioner = actor.display;
          if (actor.reference !== undefined)
            out.practitioner_id = idFromReference('Practitioner', actor, where);
        } else if (actor.type === 'Location' && actor.display) out.location = actor.display;
        else
          throw notStorable(
            where,
            'a Patient reference, or a Practitioner or Location display, is kept.',
          );
      }
      return out;
    },
  },
];
