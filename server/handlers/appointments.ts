/**
 * Appointments (docs/design.md#appointments, the Appointments tag): list, create, retrieve, and
 * update along the state machine. Ephemeral keys see and book only their own patient. Every handler
 * records the appointment and patient ids it touched in the audit trail.
 */
import { buildAppointment } from '../domain/appointment-build.js';
import { appointmentOut, timesIn } from '../domain/appointment-times.js';
import { type AppointmentUpdatePlan, planAppointmentUpdate } from '../domain/appointment-update.js';
import { emitEvent } from '../domain/events.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { auditIdsOf, requireReferences, retrieveRecord } from '../domain/records.js';
import { nowSeconds, resourceMissing } from '../domain/serialize.js';
import {
  insertRecord,
  listQueryCriteria,
  listRecords,
  modifyRecord,
  newDocInfo,
} from '../repos/records.js';
import { APPOINTMENT } from '../resources/appointment.js';
import type { AppHandler, HandlerContext } from './types.js';

/**
 * 403 for an ephemeral key naming another patient, with a `denied` audit row first: a refused
 * attempt at someone's records is itself worth recording.
 */
function assertOwnPatient(ctx: HandlerContext, patientId: string, objectIds: string[] = []): void {
  if (ctx.key.kind === 'ephemeral' && ctx.key.patientId !== patientId) {
    ctx.audit([...objectIds, patientId], 'denied');
    ctx.assertPatient(patientId);
  }
}

/** GET /v1/appointments */
export const listAppointments: AppHandler<'listAppointments'> = async (request, ctx) => {
  const { patient } = request.query;
  if (patient !== undefined) assertOwnPatient(ctx, patient);
  // An ephemeral key's list is implicitly its patient's, filter or not.
  const only = ctx.key.kind === 'ephemeral' ? (ctx.key.patientId ?? undefined) : patient;
  const page = await listRecords(APPOINTMENT, ctx.db, {
    ...listParams(request.query),
    livemode: ctx.livemode,
    ...listQueryCriteria(APPOINTMENT, request.query),
    ...(only === undefined ? {} : { patient: only }),
  });
  const ids = auditIdsOf(APPOINTMENT, page.data);
  if (only !== undefined && !ids.includes(only)) ids.push(only);
  ctx.audit(ids);
  const out = { ...page, data: page.data.map(appointmentOut) };
  return { status: 200, body: listEnvelope('/v1/appointments', out) };
};

/** POST /v1/appointments */
export const createAppointment: AppHandler<'createAppointment'> = async (request, ctx) => {
  const body = request.body;
  assertOwnPatient(ctx, body.patient);
  const appointment = buildAppointment(timesIn(body), newDocInfo(APPOINTMENT, ctx));
  return ctx.write(async (tx) => {
    await requireReferences(APPOINTMENT, tx, appointment);
    await insertRecord(APPOINTMENT, tx, appointment);
    await emitEvent(tx, ctx, { type: 'appointment.created', object: appointment });
    ctx.audit([appointment.id, appointment.patient]);
    return { status: 200, body: appointmentOut(appointment) };
  });
};

/** GET /v1/appointments/{id} */
export const retrieveAppointment: AppHandler<'retrieveAppointment'> = async (request, ctx) => {
  const { id } = request.params;
  const appointment = await retrieveRecord(APPOINTMENT, ctx, id);
  assertOwnPatient(ctx, appointment.patient, [id]);
  ctx.audit(auditIdsOf(APPOINTMENT, [appointment]));
  return { status: 200, body: appointmentOut(appointment) };
};

/** POST /v1/appointments/{id} */
export const updateAppointment: AppHandler<'updateAppointment'> = async (request, ctx) => {
  const { id } = request.params;
  return ctx.write(async (tx) => {
    // The move is judged on the status read under the row's lock, in the transaction that
    // writes it: of two racing moves the second sees the first's result, as if sent after it.
    let plan: AppointmentUpdatePlan | undefined;
    const done = await modifyRecord(APPOINTMENT, tx, id, ctx.livemode, (stored) => {
      plan = planAppointmentUpdate(stored, timesIn(request.body), nowSeconds(ctx));
      return plan.appointment;
    });
    if (done === undefined || plan === undefined) throw resourceMissing('appointment');
    if (plan.eventType !== null) {
      await emitEvent(tx, ctx, {
        type: plan.eventType,
        object: plan.appointment,
        previousAttributes: plan.previous,
      });
    }
    ctx.audit([id, done.current.patient]);
    return { status: 200, body: appointmentOut(plan.appointment) };
  });
};
