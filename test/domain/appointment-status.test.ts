import { describe, expect, it } from 'vitest';
import {
  APPOINTMENT_STATUSES,
  type AppointmentStatus,
  assertMove,
  assertSpan,
  canMove,
  initialStatus,
  isTerminal,
} from '../../server/domain/appointment-status.js';
import { thrown } from '../support/thrown.js';

// The spec's table, written out independently of the module's own table.
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

const PAIRS = APPOINTMENT_STATUSES.flatMap((from) =>
  APPOINTMENT_STATUSES.filter((to) => to !== from).map((to) => ({
    from,
    to,
    allowed: ALLOWED[from].includes(to),
  })),
);

describe('appointment state machine', () => {
  it.each(PAIRS)('$from → $to allowed: $allowed', ({ from, to, allowed }) => {
    expect(canMove(from, to)).toBe(allowed);
    if (allowed) {
      expect(() => assertMove(from, to)).not.toThrow();
    } else {
      const error = thrown(() => assertMove(from, to));
      expect(error.code).toBe('status_transition_invalid');
      expect(error.statusCode).toBe(400);
      expect(error.param).toBe('status');
      expect(error.message).toContain(`\`${from}\``);
      expect(error.message).toContain(`\`${to}\``);
    }
  });

  it.each(APPOINTMENT_STATUSES)('staying in %s is not a move and passes', (status) => {
    expect(() => assertMove(status, status)).not.toThrow();
  });

  it.each([
    { status: 'proposed', terminal: false },
    { status: 'pending', terminal: false },
    { status: 'booked', terminal: false },
    { status: 'arrived', terminal: false },
    { status: 'checked_in', terminal: false },
    { status: 'fulfilled', terminal: true },
    { status: 'cancelled', terminal: true },
    { status: 'noshow', terminal: true },
    { status: 'entered_in_error', terminal: true },
  ] as const)('$status terminal: $terminal', ({ status, terminal }) => {
    expect(isTerminal(status)).toBe(terminal);
  });
});

describe('initialStatus', () => {
  it.each([
    { given: {}, want: 'proposed' },
    { given: { confirm: false }, want: 'proposed' },
    { given: { start: 100, end: 200 }, want: 'pending' },
    { given: { start: 100, end: 200, confirm: false }, want: 'pending' },
    { given: { start: 100, end: 200, confirm: true }, want: 'booked' },
  ])('$given → $want', ({ given, want }) => {
    expect(initialStatus(given)).toBe(want);
  });

  it.each([
    { given: { start: 100 }, code: 'parameter_missing', param: 'end' },
    { given: { end: 200 }, code: 'parameter_missing', param: 'start' },
    { given: { confirm: true }, code: 'parameter_missing', param: 'start' },
    { given: { start: 200, end: 200 }, code: 'parameter_invalid', param: 'end' },
    { given: { start: 300, end: 200, confirm: true }, code: 'parameter_invalid', param: 'end' },
  ])('$given → $code ($param)', ({ given, code, param }) => {
    const error = thrown(() => initialStatus(given));
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
  });
});

describe('assertSpan', () => {
  it('accepts no time and a proper span', () => {
    expect(() => assertSpan({ start: null, end: null })).not.toThrow();
    expect(() => assertSpan({ start: 1, end: 2 })).not.toThrow();
  });

  it('blames the field the caller names', () => {
    expect(thrown(() => assertSpan({ start: 5, end: 4 }, 'start')).param).toBe('start');
  });
});
