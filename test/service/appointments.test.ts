/**
 * Appointments through the real app: creation statuses, the state machine over HTTP, the
 * reschedule rules, mode isolation, ephemeral keys, events and audit rows. Every response is
 * checked against the spec by the shared injector.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accessHistory } from '../../server/audit/index.js';
import {
  APPOINTMENT_STATUSES,
  type AppointmentStatus,
} from '../../server/domain/appointment-status.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { makeKey, type TestKey } from '../support/keys.js';

let t: TestApp;
let key: TestKey;
let liveKey: TestKey;
let patient: string;

const HOUR = 3600;
/** Unix seconds of the test clock's start (set per test). */
let T0: number;
/** A time slot; any valid timestamp will do, the API has no "not in the past" rule. */
const START = Date.UTC(2026, 11, 1, 9) / 1000;
const END = START + 1800;

async function createPatient(secret: string, family = 'Rivera'): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/patients',
    key: secret,
    body: { name: { family, given: ['Ana'] } },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

async function create(body: Record<string, unknown>, secret = key.secret) {
  return t.request({ method: 'POST', url: '/v1/appointments', key: secret, body });
}

async function update(id: string, body: Record<string, unknown>, secret = key.secret) {
  return t.request({ method: 'POST', url: `/v1/appointments/${id}`, key: secret, body });
}

async function events(type: string) {
  const res = await t.request({
    method: 'GET',
    url: `/v1/events?type=${type}&limit=100`,
    key: key.secret,
  });
  expect(res.status).toBe(200);
  return res.body.data as {
    type: string;
    data: { object: { id: string }; previous_attributes?: Record<string, unknown> };
  }[];
}

/** The moves that take a new `proposed` appointment (with a time set) to `status`. */
const PATH_TO: Record<AppointmentStatus, AppointmentStatus[]> = {
  proposed: [],
  pending: ['pending'],
  booked: ['pending', 'booked'],
  arrived: ['pending', 'booked', 'arrived'],
  checked_in: ['pending', 'booked', 'arrived', 'checked_in'],
  fulfilled: ['pending', 'booked', 'arrived', 'checked_in', 'fulfilled'],
  cancelled: ['cancelled'],
  noshow: ['pending', 'booked', 'noshow'],
  entered_in_error: ['entered_in_error'],
};

/** A new appointment walked to `status` through the API. */
async function appointmentIn(status: AppointmentStatus): Promise<string> {
  const created = await create({ patient, practitioner: 'Dr. Lee' });
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  let first = true;
  for (const step of PATH_TO[status]) {
    const body: Record<string, unknown> = { status: step };
    if (first && step === 'pending') Object.assign(body, { start: START, end: END });
    first = false;
    const res = await update(id, body);
    expect(res.status, `${step}: ${res.text}`).toBe(200);
  }
  return id;
}

beforeEach(async () => {
  t = await buildTestApp();
  T0 = Math.floor(t.clock.now / 1000);
  key = await makeKey(t.db, { nowMs: t.clock.now });
  liveKey = await makeKey(t.db, { livemode: true, nowMs: t.clock.now });
  patient = await createPatient(key.secret);
});

afterEach(async () => {
  await t.close();
});

describe('createAppointment', () => {
  it.each([
    { body: {}, status: 'proposed', start: null },
    { body: { start: START, end: END }, status: 'pending', start: START },
    { body: { start: START, end: END, confirm: true }, status: 'booked', start: START },
  ])('$body → $status', async ({ body, status, start }) => {
    const res = await create({ patient, practitioner: 'Dr. Lee', ...body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'appointment',
      livemode: false,
      patient,
      status,
      start,
      created: T0,
      updated: T0,
      cancelled_at: null,
      metadata: {},
    });
    expect(res.body).not.toHaveProperty('confirm');
    const created = await events('appointment.created');
    expect(created.map((e) => e.data.object.id)).toEqual([res.body.id]);
    const [audit] = await accessHistory(t.db, res.body.id);
    expect(audit).toMatchObject({ operationId: 'createAppointment', outcome: 'success' });
    expect(audit?.objectIds).toContain(patient);
  });

  it('stores every optional field', async () => {
    const res = await create({
      patient,
      practitioner: 'Dr. Lee',
      appointment_type: 'followup',
      reason: 'Review',
      location: 'Room 4',
      metadata: { ehr_ref: 'A-1' },
    });
    expect(res.status).toBe(200);
    const got = await t.request({
      method: 'GET',
      url: `/v1/appointments/${res.body.id}`,
      key: key.secret,
    });
    expect(got.body).toEqual(res.body);
    expect(got.body).toMatchObject({ appointment_type: 'followup', metadata: { ehr_ref: 'A-1' } });
  });

  it.each([
    { body: { start: START }, code: 'parameter_missing', param: 'end' },
    { body: { end: END }, code: 'parameter_missing', param: 'start' },
    { body: { confirm: true }, code: 'parameter_missing', param: 'start' },
    { body: { start: START, end: START }, code: 'parameter_invalid', param: 'end' },
    { body: { start: END, end: START }, code: 'parameter_invalid', param: 'end' },
    { body: { status: 'booked' }, code: 'parameter_unknown', param: 'status' },
  ])('$body → 400 $code ($param)', async ({ body, code, param }) => {
    const res = await create({ patient, practitioner: 'Dr. Lee', ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
    expect(await events('appointment.created')).toEqual([]);
  });

  it('404 for an unknown patient and for a patient of the other mode', async () => {
    const unknown = await create({
      patient: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
      practitioner: 'Dr. Lee',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'patient' });
    const livePatient = await createPatient(liveKey.secret);
    const other = await create({ patient: livePatient, practitioner: 'Dr. Lee' });
    expect(other.status).toBe(404);
    expect(other.body.error).toMatchObject({ code: 'resource_missing', param: 'patient' });
    const live = await create({ patient: livePatient, practitioner: 'Dr. Lee' }, liveKey.secret);
    expect(live.status).toBe(200);
    expect(live.body.livemode).toBe(true);
  });
});

describe('retrieveAppointment and mode isolation', () => {
  it('retrieves in its mode only', async () => {
    const id = await appointmentIn('booked');
    const res = await t.request({ method: 'GET', url: `/v1/appointments/${id}`, key: key.secret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'booked', start: START, end: END });
    const live = await t.request({
      method: 'GET',
      url: `/v1/appointments/${id}`,
      key: liveKey.secret,
    });
    expect(live.status).toBe(404);
    expect(live.body.error.code).toBe('resource_missing');
    const liveUpdate = await update(id, { reason: 'x' }, liveKey.secret);
    expect(liveUpdate.status).toBe(404);
  });

  it('404 for an unknown id', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/v1/appointments/appt_01JD8A2B3C4D5E6F7G8H9J0K1M',
      key: key.secret,
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });
});

describe('listAppointments', () => {
  it('filters by patient, status and created, newest first, in the key mode', async () => {
    const other = await createPatient(key.secret, 'Okafor');
    const a = await appointmentIn('proposed');
    t.clock.now += 10_000;
    const b = await appointmentIn('booked');
    const c = (await create({ patient: other, practitioner: 'Dr. Chen' })).body.id as string;
    const livePatient = await createPatient(liveKey.secret);
    await create({ patient: livePatient, practitioner: 'Dr. Lee' }, liveKey.secret);

    const list = async (query: string) => {
      const res = await t.request({
        method: 'GET',
        url: `/v1/appointments${query}`,
        key: key.secret,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'list', url: '/v1/appointments' });
      return (res.body.data as { id: string }[]).map((x) => x.id);
    };
    expect(await list('')).toEqual([c, b, a]);
    expect(await list(`?patient=${patient}`)).toEqual([b, a]);
    expect(await list('?status=booked')).toEqual([b]);
    expect(await list(`?patient=${other}&status=proposed`)).toEqual([c]);
    expect(await list(`?created[gt]=${T0}`)).toEqual([c, b]);
    expect(await list(`?created[lte]=${T0}`)).toEqual([a]);
    expect(await list('?limit=1')).toEqual([c]);
    expect(await list(`?starting_after=${c}`)).toEqual([b, a]);
    const bad = await t.request({
      method: 'GET',
      url: '/v1/appointments?status=done',
      key: key.secret,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('status');
  });
});

describe('ephemeral keys', () => {
  let other: string;
  let ephemeral: TestKey;

  beforeEach(async () => {
    other = await createPatient(key.secret, 'Okafor');
    ephemeral = await makeKey(t.db, {
      kind: 'ephemeral',
      scopes: ['appointments:read', 'appointments:write'],
      patientId: patient,
      expiresInSeconds: 900,
      nowMs: t.clock.now,
    });
  });

  it('books, lists and retrieves only its own patient', async () => {
    const own = await create({ patient, practitioner: 'Dr. Lee' }, ephemeral.secret);
    expect(own.status).toBe(200);
    const theirs = (await create({ patient: other, practitioner: 'Dr. Lee' })).body.id as string;

    const list = await t.request({ method: 'GET', url: '/v1/appointments', key: ephemeral.secret });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([own.body.id]);

    const read = await t.request({
      method: 'GET',
      url: `/v1/appointments/${own.body.id}`,
      key: ephemeral.secret,
    });
    expect(read.status).toBe(200);

    const denied = await t.request({
      method: 'GET',
      url: `/v1/appointments/${theirs}`,
      key: ephemeral.secret,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    expect(
      t.audit.entries.some((e) => e.outcome === 'denied' && e.objectIds.includes(theirs)),
    ).toBe(true);
  });

  it('403 for another patient in the body or the filter', async () => {
    const book = await create({ patient: other, practitioner: 'Dr. Lee' }, ephemeral.secret);
    expect(book.status).toBe(403);
    expect(book.body.error.code).toBe('insufficient_scope');
    const list = await t.request({
      method: 'GET',
      url: `/v1/appointments?patient=${other}`,
      key: ephemeral.secret,
    });
    expect(list.status).toBe(403);
    expect(await events('appointment.created')).toEqual([]);
  });

  it('cannot update (the spec does not list ephemeral keys for it)', async () => {
    const own = await create({ patient, practitioner: 'Dr. Lee' }, ephemeral.secret);
    const res = await update(own.body.id, { status: 'cancelled' }, ephemeral.secret);
    expect(res.status).toBe(403);
  });
});

describe('updateAppointment: state machine', () => {
  it('walks the happy path with one appointment.updated per move', async () => {
    const id = await appointmentIn('fulfilled');
    const res = await t.request({ method: 'GET', url: `/v1/appointments/${id}`, key: key.secret });
    expect(res.body.status).toBe('fulfilled');
    const updated = (await events('appointment.updated')).reverse();
    expect(updated.map((e) => e.data.previous_attributes?.status)).toEqual([
      'proposed',
      'pending',
      'booked',
      'arrived',
      'checked_in',
    ]);
    expect(updated[0]?.data.previous_attributes).toMatchObject({ start: null, end: null });
    const fixed = await update(id, { status: 'entered_in_error', metadata: { note: 'dup' } });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ status: 'entered_in_error', metadata: { note: 'dup' } });
  });

  const ALLOWED: Record<AppointmentStatus, AppointmentStatus[]> = {
    proposed: ['pending', 'cancelled', 'entered_in_error'],
    pending: ['booked', 'cancelled', 'entered_in_error'],
    booked: ['arrived', 'cancelled', 'noshow', 'entered_in_error'],
    arrived: ['checked_in', 'cancelled', 'entered_in_error'],
    checked_in: ['fulfilled', 'entered_in_error'],
    fulfilled: ['entered_in_error'],
    cancelled: ['entered_in_error'],
    noshow: ['entered_in_error'],
    entered_in_error: [],
  };
  const illegalMoves = APPOINTMENT_STATUSES.flatMap((from) =>
    APPOINTMENT_STATUSES.filter((to) => to !== from && !ALLOWED[from].includes(to)).map((to) => ({
      from,
      to,
    })),
  );

  it.each(APPOINTMENT_STATUSES)(
    'every illegal move out of %s is 400 naming both states',
    async (from) => {
      const id = await appointmentIn(from);
      const before = (await events('appointment.updated')).length;
      for (const { to } of illegalMoves.filter((m) => m.from === from)) {
        const res = await update(id, { status: to });
        expect(res.status, `${from} → ${to}`).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'status_transition_invalid',
          param: 'status',
        });
        expect(res.body.error.message).toContain(`\`${from}\``);
        expect(res.body.error.message).toContain(`\`${to}\``);
      }
      expect((await events('appointment.updated')).length).toBe(before);
      const after = await t.request({
        method: 'GET',
        url: `/v1/appointments/${id}`,
        key: key.secret,
      });
      expect(after.body.status).toBe(from);
    },
  );

  it.each(APPOINTMENT_STATUSES.flatMap((from) => ALLOWED[from].map((to) => ({ from, to }))))(
    '$from → $to is accepted',
    async ({ from, to }) => {
      const id = await appointmentIn(from);
      // A proposed appointment has no time yet; `pending` needs one in the same request.
      const time = from === 'proposed' && to === 'pending' ? { start: START, end: END } : {};
      const res = await update(id, { status: to, ...time });
      expect(res.status, res.text).toBe(200);
      expect(res.body.status).toBe(to);
    },
  );

  it('cancel sets cancelled_at and the reason, and emits appointment.cancelled', async () => {
    const id = await appointmentIn('booked');
    t.clock.now += 60_000;
    const res = await update(id, { status: 'cancelled', cancellation_reason: 'Asked to cancel' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'cancelled',
      cancelled_at: T0 + 60,
      updated: T0 + 60,
      cancellation_reason: 'Asked to cancel',
    });
    const cancelled = await events('appointment.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.data.object).toMatchObject({ id, status: 'cancelled' });
    expect(cancelled[0]?.data.previous_attributes).toMatchObject({
      status: 'booked',
      cancelled_at: null,
      cancellation_reason: null,
      updated: T0,
    });
  });

  it('sending the current status changes nothing and emits nothing', async () => {
    const id = await appointmentIn('booked');
    const before = (await events('appointment.updated')).length;
    t.clock.now += 60_000;
    const res = await update(id, { status: 'booked' });
    expect(res.status).toBe(200);
    expect(res.body.updated).toBe(T0);
    expect((await events('appointment.updated')).length).toBe(before);
  });
});

describe('updateAppointment: reschedule and field rules', () => {
  it('reschedules while booked; status stays; event has the old times', async () => {
    const id = await appointmentIn('booked');
    const res = await update(id, { start: START + HOUR, end: END + HOUR });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'booked', start: START + HOUR, end: END + HOUR });
    const [last] = await events('appointment.updated');
    expect(last?.data.previous_attributes).toMatchObject({ start: START, end: END });
  });

  it.each<{
    status: AppointmentStatus;
    body: Record<string, unknown>;
    code: string;
    param: string;
  }>([
    {
      status: 'arrived',
      body: { start: START + HOUR, end: END + HOUR },
      code: 'parameter_invalid',
      param: 'start',
    },
    { status: 'checked_in', body: { end: END + HOUR }, code: 'parameter_invalid', param: 'end' },
    { status: 'booked', body: { end: START - 1 }, code: 'parameter_invalid', param: 'end' },
    { status: 'booked', body: { start: END }, code: 'parameter_invalid', param: 'start' },
    { status: 'proposed', body: { start: START }, code: 'parameter_missing', param: 'end' },
    { status: 'proposed', body: { status: 'pending' }, code: 'parameter_missing', param: 'start' },
    {
      status: 'booked',
      body: { cancellation_reason: 'x' },
      code: 'parameter_invalid',
      param: 'cancellation_reason',
    },
    { status: 'cancelled', body: { reason: 'x' }, code: 'parameter_invalid', param: 'reason' },
    {
      status: 'fulfilled',
      body: { practitioner: 'Dr. Chen' },
      code: 'parameter_invalid',
      param: 'practitioner',
    },
    { status: 'noshow', body: { start: START + HOUR }, code: 'parameter_invalid', param: 'start' },
    {
      status: 'booked',
      body: { patient: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W' },
      code: 'parameter_unknown',
      param: 'patient',
    },
    {
      status: 'booked',
      body: { cancelled_at: 1 },
      code: 'parameter_unknown',
      param: 'cancelled_at',
    },
  ])('$status + $body → 400 $code ($param)', async ({ status, body, code, param }) => {
    const id = await appointmentIn(status);
    const res = await update(id, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it('clears a nullable field with null and merges metadata', async () => {
    const created = await create({
      patient,
      practitioner: 'Dr. Lee',
      reason: 'Review',
      metadata: { a: '1', b: '2' },
    });
    const res = await update(created.body.id, { reason: null, metadata: { a: '', c: '3' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reason: null, metadata: { b: '2', c: '3' } });
  });

  it('audits the patient id with every write, in the write transaction', async () => {
    const id = await appointmentIn('pending');
    const rows = await accessHistory(t.db, id);
    expect(rows.map((r) => r.operationId)).toEqual(['updateAppointment', 'createAppointment']);
    expect(rows.every((r) => r.objectIds.includes(patient) && r.keyId === key.id)).toBe(true);
  });
});
