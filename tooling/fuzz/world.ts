/**
 * The objects a fuzz run creates before its cases, so valid cases can name real ids, and the
 * fresh objects a single case needs for itself (an update or delete that must not depend on
 * what earlier cases did to a shared object).
 */
import { randomUlidBody } from './ids.js';
import { luhnDigit } from './luhn.js';
import type { Schema, SchemaRegistry } from './schema-registry.js';

/**
 * What the run's version takes when booking an appointment, read from its request schema, so
 * set-up follows each version's contract without naming versions: whether it has
 * `practitioner_id` (added after 2026-11-01, whose closed schema refuses it) and whether times
 * are unix seconds (2026-11-01) or RFC 3339 date-times (from 2026-12-01).
 */
export interface Booking {
  practitionerId: boolean;
  unixTimes: boolean;
}

export function bookingShape(registry: SchemaRegistry): Booking {
  const params = registry.resolve({ $ref: 'urn:openapi:request:AppointmentCreateParams' });
  const properties = (params.properties ?? {}) as Record<string, Schema>;
  const start = properties.start === undefined ? undefined : registry.resolve(properties.start);
  if (start === undefined) throw new Error('AppointmentCreateParams has no `start`');
  return { practitionerId: 'practitioner_id' in properties, unixTimes: start.type === 'integer' };
}

/** Real ids from the set-up phase, all in test mode. */
export interface World {
  patients: string[];
  practitioners: string[];
  /**
   * One `pending` appointment per patient (same index as `patients`), each with a set-up
   * practitioner's `practitioner_id`.
   */
  appointments: string[];
  claims: string[];
  webhooks: string[];
  events: string[];
}

/** A world with no objects yet, for a set-up to fill. */
export function emptyWorld(): World {
  return {
    patients: [],
    practitioners: [],
    appointments: [],
    claims: [],
    webhooks: [],
    events: [],
  };
}

/** Fresh objects a case can ask for; the case names them with a placeholder. */
export type FreshKind =
  | 'patient'
  | 'practitioner'
  | 'appointment-pending'
  | 'appointment-booked'
  | 'webhook'
  | 'token';

/** The placeholder a case writes where the fresh object's id goes. */
// Invisible separators: valid text (no NUL, which the spec refuses), and never generated.
export const FRESH = '\u2063fresh\u2063';

/** A well-formed id of `prefix` that (almost surely) names nothing: a 404 is the right answer. */
export function unknownId(prefix: string, seed: number): string {
  return `${prefix}_${randomUlidBody(seed)}`;
}

/** Fields of a patient made in set-up: generated text only, never a real person. */
export function setupPatient(n: number): Record<string, unknown> {
  return {
    name: { family: `Fuzzfamily${n}`, given: [`Fuzzgiven${n}`] },
    identifiers: [{ type: 'MR', system: 'https://fuzz.example/mrn', value: `FUZZ-SETUP-${n}` }],
    birth_date: '1970-01-01',
  };
}

/**
 * Fields of a practitioner made in set-up: generated text, and an NPI whose check digit holds
 * (`80840` + the first nine digits, Luhn: the NPI standard).
 */
export function setupPractitioner(n: number): Record<string, unknown> {
  return {
    name: { family: `Fuzzclinician${n}`, given: [`Fuzzgiven${n}`], prefix: ['Dr.'] },
    npi: npiWithCheckDigit(String(100_000_000 + n)),
    specialty: '207Q00000X',
  };
}

/** A valid NPI from nine digits (more are cut, fewer padded with zeros). */
export function npiWithCheckDigit(digits: string): string {
  const nine = digits.padEnd(9, '0').slice(0, 9);
  return nine + String(luhnDigit(`80840${nine}`));
}

/** A loopback URL: test mode accepts it, and the service (worker off) never calls it. */
export const SETUP_HOOK_URL = 'http://127.0.0.1:9/fuzz-hooks';
