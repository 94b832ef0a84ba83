/**
 * The objects a fuzz run creates before its cases, so valid cases can name real ids, and the
 * fresh objects a single case needs for itself (an update or delete that must not depend on
 * what earlier cases did to a shared object).
 */
import { randomUlidBody } from './ids.js';

/** Real ids from the set-up phase, all in test mode. */
export interface World {
  patients: string[];
  /** One `pending` appointment per patient (same index as `patients`). */
  appointments: string[];
  claims: string[];
  webhooks: string[];
  events: string[];
}

/** Fresh objects a case can ask for; the case names them with a placeholder. */
export type FreshKind =
  | 'patient'
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

/** A loopback URL: test mode accepts it, and the service (worker off) never calls it. */
export const SETUP_HOOK_URL = 'http://127.0.0.1:9/fuzz-hooks';
