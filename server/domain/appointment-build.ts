/**
 * A new appointment from `createAppointment` parameters: every field present (`null` when
 * unset), the first status decided by the state machine. Pure; the handler stores it.
 */
import type { components, Writable } from '../../generated/types.js';
import type { NewObjectInfo } from '../resources/resource.js';
import { initialStatus } from './appointment-status.js';
import type { WithStoredTimes } from './appointment-times.js';
import type { Appointment } from './appointment-update.js';
import { checkMetadata } from './serialize.js';

/** The body of `createAppointment` (schema `AppointmentCreateParams`), times in seconds. */
export type AppointmentCreateParams = WithStoredTimes<
  Writable<components['schemas']['AppointmentCreateParams']>
>;

/**
 * Builds the appointment, or throws the spec's 400 for its times (`start`/`end` in pairs,
 * `end > start`, `confirm` needs a time) or metadata. `confirm` is an instruction, not a field:
 * it is neither stored nor returned.
 *
 * @example
 * buildAppointment({ patient, practitioner: 'Dr. Lee' }, info).status // 'proposed'
 */
export function buildAppointment(
  params: AppointmentCreateParams,
  info: NewObjectInfo,
): Appointment {
  const status = initialStatus(params);
  return {
    id: info.id,
    object: 'appointment',
    livemode: info.livemode,
    created: info.nowSeconds,
    updated: info.nowSeconds,
    patient: params.patient,
    practitioner: params.practitioner,
    practitioner_id: params.practitioner_id ?? null,
    status,
    start: params.start ?? null,
    end: params.end ?? null,
    appointment_type: params.appointment_type ?? null,
    reason: params.reason ?? null,
    location: params.location ?? null,
    cancellation_reason: null,
    cancelled_at: null,
    metadata: { ...checkMetadata(params.metadata) },
  };
}
