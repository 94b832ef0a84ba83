import { describe, expect, it } from 'vitest';
import {
  type Appointment,
  type AppointmentUpdateParams,
  planAppointmentUpdate,
} from '../../server/domain/appointment-update.js';
import { thrown } from '../support/thrown.js';

const NOW = 1_800_000_000;
const START = 1_800_100_000;
const END = START + 1800;

function appointment(overrides: Partial<Appointment> = {}): Appointment {
  return {
    id: 'appt_01JD8A2B3C4D5E6F7G8H9J0K1M',
    object: 'appointment',
    livemode: false,
    created: NOW - 100,
    updated: NOW - 100,
    patient: 'pat_01JD7X5K8M9N2P3Q4R5S6T7V8W',
    practitioner: 'Dr. Lee',
    practitioner_id: null,
    status: 'booked',
    start: START,
    end: END,
    appointment_type: null,
    reason: null,
    location: null,
    cancellation_reason: null,
    cancelled_at: null,
    metadata: {},
    ...overrides,
  };
}

const NO_TIME = { status: 'proposed', start: null, end: null } as const;

describe('planAppointmentUpdate: accepted changes', () => {
  it.each<{
    name: string;
    given: Partial<Appointment>;
    params: AppointmentUpdateParams;
    want: Partial<Appointment>;
    previous: Record<string, unknown>;
    event: string | null;
  }>([
    {
      name: 'reschedule a booked appointment keeps its status',
      given: {},
      params: { start: START + 3600, end: END + 3600 },
      want: { status: 'booked', start: START + 3600, end: END + 3600, updated: NOW },
      previous: { start: START, end: END, updated: NOW - 100 },
      event: 'appointment.updated',
    },
    {
      name: 'moving only the end',
      given: {},
      params: { end: END + 60 },
      want: { start: START, end: END + 60 },
      previous: { end: END, updated: NOW - 100 },
      event: 'appointment.updated',
    },
    {
      name: 'proposed → pending with a time in the same request',
      given: NO_TIME,
      params: { status: 'pending', start: START, end: END },
      want: { status: 'pending', start: START, end: END },
      previous: { status: 'proposed', start: null, end: null, updated: NOW - 100 },
      event: 'appointment.updated',
    },
    {
      name: 'cancel with a reason sets cancelled_at',
      given: {},
      params: { status: 'cancelled', cancellation_reason: 'Asked to cancel' },
      want: { status: 'cancelled', cancelled_at: NOW, cancellation_reason: 'Asked to cancel' },
      previous: { status: 'booked', cancelled_at: null, cancellation_reason: null },
      event: 'appointment.cancelled',
    },
    {
      name: 'cancel a proposed appointment without a time',
      given: NO_TIME,
      params: { status: 'cancelled' },
      want: { status: 'cancelled', cancelled_at: NOW, cancellation_reason: null, start: null },
      previous: { status: 'proposed', cancelled_at: null },
      event: 'appointment.cancelled',
    },
    {
      name: 'terminal → entered_in_error with metadata',
      given: { status: 'fulfilled' },
      params: { status: 'entered_in_error', metadata: { ehr_ref: 'A-1' } },
      want: { status: 'entered_in_error', metadata: { ehr_ref: 'A-1' } },
      previous: { status: 'fulfilled', metadata: {} },
      event: 'appointment.updated',
    },
    {
      name: 'clearing a nullable field',
      given: { reason: 'Check-up', location: 'Room 4' },
      params: { reason: null },
      want: { reason: null, location: 'Room 4' },
      previous: { reason: 'Check-up' },
      event: 'appointment.updated',
    },
    {
      name: 'sending the current status on a terminal appointment',
      given: { status: 'noshow' },
      params: { status: 'noshow' },
      want: { status: 'noshow', updated: NOW - 100 },
      previous: {},
      event: null,
    },
    {
      name: 'the same values change nothing',
      given: { practitioner: 'Dr. Lee' },
      params: { practitioner: 'Dr. Lee', start: START },
      want: { updated: NOW - 100 },
      previous: {},
      event: null,
    },
  ])('$name', ({ given, params, want, previous, event }) => {
    const plan = planAppointmentUpdate(appointment(given), params, NOW);
    expect(plan.appointment).toMatchObject(want);
    expect(plan.previous).toMatchObject(previous);
    expect(plan.eventType).toBe(event);
    if (event === null) expect(plan.previous).toEqual({});
  });
});

describe('planAppointmentUpdate: refused changes', () => {
  it.each<{
    name: string;
    given: Partial<Appointment>;
    params: AppointmentUpdateParams;
    code: string;
    param: string;
  }>([
    {
      name: 'illegal move',
      given: { status: 'fulfilled' },
      params: { status: 'booked' },
      code: 'status_transition_invalid',
      param: 'status',
    },
    {
      name: 'skipping a step',
      given: NO_TIME,
      params: { status: 'booked', start: START, end: END },
      code: 'status_transition_invalid',
      param: 'status',
    },
    {
      name: 'reschedule an arrived appointment',
      given: { status: 'arrived' },
      params: { start: START + 60, end: END + 60 },
      code: 'parameter_invalid',
      param: 'start',
    },
    {
      name: 'end on a checked-in appointment',
      given: { status: 'checked_in' },
      params: { end: END + 60 },
      code: 'parameter_invalid',
      param: 'end',
    },
    {
      name: 'terminal: another field',
      given: { status: 'cancelled' },
      params: { practitioner: 'Dr. Chen' },
      code: 'parameter_invalid',
      param: 'practitioner',
    },
    {
      name: 'terminal: cleared field',
      given: { status: 'fulfilled' },
      params: { location: null },
      code: 'parameter_invalid',
      param: 'location',
    },
    {
      name: 'end before start',
      given: {},
      params: { end: START - 1 },
      code: 'parameter_invalid',
      param: 'end',
    },
    {
      name: 'start after the kept end',
      given: {},
      params: { start: END + 1 },
      code: 'parameter_invalid',
      param: 'start',
    },
    {
      name: 'start without end on a proposed appointment',
      given: NO_TIME,
      params: { start: START },
      code: 'parameter_missing',
      param: 'end',
    },
    {
      name: 'pending without a time',
      given: NO_TIME,
      params: { status: 'pending' },
      code: 'parameter_missing',
      param: 'start',
    },
    {
      name: 'cancellation_reason without cancelling',
      given: {},
      params: { cancellation_reason: 'Sick' },
      code: 'parameter_invalid',
      param: 'cancellation_reason',
    },
    {
      name: 'cancellation_reason with another move',
      given: {},
      params: { status: 'arrived', cancellation_reason: 'Sick' },
      code: 'parameter_invalid',
      param: 'cancellation_reason',
    },
  ])('$name → $code ($param)', ({ given, params, code, param }) => {
    const error = thrown(() => planAppointmentUpdate(appointment(given), params, NOW));
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
  });
});
