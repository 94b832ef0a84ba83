/**
 * FHIR R4 Appointment (docs/design.md#fhir-r4): read, search by patient, date, status. Audits
 * like the Appointments tag: the appointments' ids and their patients'.
 */
import { auditIds } from '../fhir/audit-ids.js';
import { searchset } from '../fhir/bundle.js';
import { conditionalRead } from '../fhir/conditional-read.js';
import { pageParams } from '../fhir/cursor.js';
import { resourceNotFound } from '../fhir/errors.js';
import { fromFhirId } from '../fhir/ids.js';
import { countOnly } from '../fhir/lenient-search.js';
import {
  appointmentToFhir,
  type StoredAppointment,
  storedAppointmentStatus,
} from '../fhir/mapping/appointment.js';
import { dateRange } from '../fhir/search/date-range.js';
import { referenceParam } from '../fhir/search/token.js';
import { getAppointment } from '../repos/appointments.js';
import { searchAppointmentsForFhir } from '../repos/fhir-appointment-search.js';
import type { AppHandler } from './types.js';

/** GET /fhir/R4/Appointment */
export const searchFhirAppointments: AppHandler<'searchFhirAppointments'> = async (
  request,
  ctx,
) => {
  const q = request.query;
  const summary = countOnly(q);
  const patient = q.patient === undefined ? undefined : referenceParam('Patient', q.patient);
  const status = q.status === undefined ? undefined : storedAppointmentStatus(q.status);
  // A patient we could not have, or a status we do not keep (waitlist), matches nothing.
  const none = patient === null || (q.status !== undefined && status === undefined);
  const page = none
    ? { data: [], hasMore: false, total: 0 }
    : await searchAppointmentsForFhir<StoredAppointment>(
        ctx.db,
        {
          livemode: ctx.livemode,
          ...pageParams('Appointment', q),
          ...(patient === undefined ? {} : { patient }),
          ...(status === undefined ? {} : { status }),
          ...(q.date === undefined ? {} : { start: dateRange(q.date, 'date') }),
        },
        summary,
      );
  ctx.audit(auditIds(page.data));
  return { status: 200, body: searchset('Appointment', q, page, appointmentToFhir, summary) };
};

/** GET /fhir/R4/Appointment/{id} */
export const readFhirAppointment: AppHandler<'readFhirAppointment'> = async (request, ctx) => {
  const id = fromFhirId('Appointment', request.params.id);
  const stored =
    id === undefined
      ? undefined
      : await getAppointment<StoredAppointment>(ctx.db, id, ctx.livemode);
  if (id === undefined || stored === undefined) {
    ctx.audit(id === undefined ? [] : [id], 'not_found');
    throw resourceNotFound('Appointment');
  }
  ctx.audit([id, stored.patient]);
  return conditionalRead(appointmentToFhir(stored), request.headers['if-none-match']);
};

/**
 * POST /fhir/R4/Appointment/_search: the GET search. The FHIR scope has read the form body into the
 * query (server/fhir/plugin.ts), so both answer the same Bundle for the same parameters.
 */
export const searchFhirAppointmentsByPost: AppHandler<'searchFhirAppointmentsByPost'> = (
  request,
  ctx,
) => searchFhirAppointments({ ...request, body: undefined }, ctx);
