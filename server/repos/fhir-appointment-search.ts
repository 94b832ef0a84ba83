/**
 * Appointment search for FHIR (`GET /fhir/R4/Appointment`, docs/design.md#fhir-r4): the
 * filters of `listAppointments` plus a range on the start (`date=ge…&date=lt…`), which `/v1`
 * does not filter on. Appointments without a start never match a date.
 */
import type { Db } from '../db/types.js';
import type { AppointmentListParams } from './appointments.js';
import { type CountedPage, type CreatedRange, paginateCounted } from './pagination.js';
import { parseData } from './rows.js';

export interface FhirAppointmentSearchParams extends AppointmentListParams {
  /** Bounds on the start, unix seconds. */
  start?: CreatedRange;
}

/** Appointments matching every given criterion, newest first, as stored, and how many match. */
export function searchAppointmentsForFhir<T>(
  db: Db,
  params: FhirAppointmentSearchParams,
  countOnly = false,
): Promise<CountedPage<T>> {
  const start = params.start ?? {};
  return paginateCounted(
    db,
    {
      from: 'appointments',
      select: 'data',
      filters: [
        (p) => `livemode = ${p.add(params.livemode)}`,
        (p) => (params.patient === undefined ? undefined : `patient_id = ${p.add(params.patient)}`),
        (p) => (params.status === undefined ? undefined : `status = ${p.add(params.status)}`),
        (p) => (start.gt === undefined ? undefined : `start_at > ${p.add(start.gt)}`),
        (p) => (start.gte === undefined ? undefined : `start_at >= ${p.add(start.gte)}`),
        (p) => (start.lt === undefined ? undefined : `start_at < ${p.add(start.lt)}`),
        (p) => (start.lte === undefined ? undefined : `start_at <= ${p.add(start.lte)}`),
      ],
      list: params,
      map: parseData<T>,
    },
    countOnly,
  );
}
