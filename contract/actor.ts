/**
 * The acting person or system of a request (docs/design.md#keys, the `PatientCare-Actor`
 * header): an opaque id the integrator assigns (`clinician:4711`, `u-8f2c@clinic`), stored on
 * every audit row of the request. One definition for the spec's parameter (checked by the
 * lint), the server's header check, the audit entry check, the key store and the client.
 *
 * The alphabet leaves out spaces, quotes and everything else free text needs, so a name or a
 * birth date cannot be sent by mistake; it is still the integrator's duty never to use PHI
 * (a medical record number, an email address of a patient) as an actor id.
 */
export const ACTOR_HEADER = 'PatientCare-Actor';

/** 1–64 characters of `[A-Za-z0-9._:@-]`; the spec's `PatientCareActor` schema says the same. */
export const ACTOR_PATTERN = '^[A-Za-z0-9._:@-]{1,64}$';

export const ACTOR_MAX_LENGTH = 64;

const ACTOR = new RegExp(ACTOR_PATTERN);

/** True when `value` is an actor id in the allowed form. */
export function isActor(value: unknown): value is string {
  return typeof value === 'string' && ACTOR.test(value);
}
