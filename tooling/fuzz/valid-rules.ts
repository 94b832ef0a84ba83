/**
 * The rules a valid request must meet beyond its JSON Schema, one function per operation
 * body, written from the spec's prose (spec/openapi.yaml: the introduction and each tag's
 * description). Each takes a schema-valid value and makes it valid for the service too, so "valid
 * input is never rejected" can be asserted strictly. Everything listed here is something the schema
 * cannot say; nothing here is a guess about the implementation:
 *
 * - references (`patient`, `appointment`, path ids) name real objects of the set-up phase, or
 *   on purpose a random well-formed id (then 404 is correct);
 * - `starting_after` and `ending_before` are exclusive (docs/design.md#lists);
 * - patients: `MR` identifiers unique per mode (Patients tag, else 409), so generated values get a
 *   run counter; birth dates not in the future (generated up to 2020);
 * - appointments: `start`/`end` together with `end > start`, `confirm` only with a time;
 *   updates follow the state machine from the fresh appointment's status
 *   (docs/design.md#appointments); `cancellation_reason` only with the move to `cancelled`;
 * - claims: `insurance` exactly when `billing_type` is `insurance`, NPI Luhn check digit,
 *   `sequence`s numbered 1..n, `diagnosis_sequences` naming existing diagnoses, a real ISO
 *   4217 currency, an appointment of the same patient;
 * - webhooks: test-mode URLs on loopback (also keeps any delivery on this machine), `*` alone
 *   in `enabled_events`.
 */
import { FRESH, type FreshKind, npiWithCheckDigit, unknownId, type World } from './world.js';

/** Random whole numbers drawn by fast-check, consumed in order by the rules. */
export class Picks {
  #i = 0;
  constructor(private readonly values: readonly number[]) {}
  /** A number in `0..n-1`. */
  below(n: number): number {
    const v = this.values[this.#i++ % this.values.length] ?? 0;
    return n <= 0 ? 0 : v % n;
  }
  /** True about once in `n` draws. */
  oneIn(n: number): boolean {
    return this.below(n) === 0;
  }
  from<T>(items: readonly T[]): T {
    const item = items[this.below(items.length)];
    if (item === undefined) throw new Error('nothing to pick from');
    return item;
  }
}

/** What a rule returns: the body, and whether it names an unknown object on purpose. */
export interface Ruled {
  body: unknown;
  unknownReference: boolean;
  fresh?: FreshKind;
}

type Obj = Record<string, unknown>;
type Rule = (body: Obj, world: World, picks: Picks) => Ruled;

let counter = 0;
/** A suffix unique in this process, so generated MRNs never collide (409) by chance. */
function unique(value: string, max: number): string {
  const suffix = `-${(++counter).toString(36)}`;
  return [...value].slice(0, Math.max(0, max - suffix.length)).join('') + suffix;
}

/** A real id most of the time, a random well-formed one (404) otherwise. */
export function reference(
  ids: readonly string[],
  prefix: string,
  picks: Picks,
): { id: string; unknown: boolean } {
  if (ids.length === 0 || picks.oneIn(6)) {
    return { id: unknownId(prefix, picks.below(2 ** 31) + 1), unknown: true };
  }
  return { id: picks.from(ids), unknown: false };
}

/** createPatient's fields with run-unique identifier values (MR is unique per mode). */
export function patientFields(fields: Obj): Obj {
  const out = { ...fields };
  if (Array.isArray(out.identifiers)) {
    out.identifiers = (out.identifiers as Obj[]).map((identifier) => ({
      ...identifier,
      value: unique(String(identifier.value), 100),
    }));
  }
  return out;
}

function createPatient(body: Obj, _world: World, picks: Picks): Ruled {
  if ('token' in body) {
    // A fresh intake token (single use); sometimes one never issued (400 token_invalid).
    if (picks.oneIn(6)) return { body, unknownReference: true };
    return { body: { ...body, token: FRESH }, unknownReference: false, fresh: 'token' };
  }
  return { body: patientFields(body), unknownReference: false };
}

/**
 * Valid times stay at or below 9999-12-31T23:59:59Z: since 2026-12-01 times are RFC 3339
 * date-times, whose four-digit year ends there, and a 2026-11-01 request is migrated up to
 * one, so a later unix time is refused (400) in every version (spec/CHANGELOG.md 2026-12-01).
 */
const MAX_TIME = 253_402_300_799;

/** `2026-11-04T09:00:00Z` for unix seconds: the latest version's time (2026-12-01 on). */
function dateTimeText(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * The span rules on unix seconds whatever the version speaks: date-times (2026-12-01 on) are
 * read into whole seconds within 1970..9999 first and written back without fractions, which
 * the spec's pattern refuses.
 */
function timeSpan(body: Obj, picks: Picks): void {
  const text = typeof body.start === 'string' || typeof body.end === 'string';
  if (text) {
    for (const field of ['start', 'end'] as const) {
      if (body[field] === undefined) continue;
      const seconds = Math.floor(Date.parse(String(body[field])) / 1000);
      body[field] = Number.isFinite(seconds) ? Math.min(Math.max(seconds, 0), MAX_TIME) : 0;
    }
  }
  secondsSpan(body, picks);
  if (text) {
    for (const field of ['start', 'end'] as const) {
      if (body[field] !== undefined) body[field] = dateTimeText(Number(body[field]));
    }
  }
}

function secondsSpan(body: Obj, picks: Picks): void {
  const hasStart = body.start !== undefined;
  const hasEnd = body.end !== undefined;
  if (hasStart !== hasEnd) {
    if (picks.oneIn(2)) {
      delete body.start;
      delete body.end;
    } else {
      const known = Number(body.start ?? body.end);
      body.start = Math.max(0, Math.min(known, MAX_TIME - 7201));
      body.end = Number(body.start) + 1 + picks.below(7200);
    }
  }
  if (body.start !== undefined && body.end !== undefined) {
    let start = Math.min(Number(body.start), MAX_TIME - 1);
    let end = Math.min(Number(body.end), MAX_TIME);
    if (end === start) {
      if (start === 0) end = 1;
      else start -= 1;
    }
    if (end < start) [start, end] = [end, start];
    body.start = start;
    body.end = end;
  }
}

function createAppointment(body: Obj, world: World, picks: Picks): Ruled {
  const out = { ...body };
  const patient = reference(world.patients, 'pat', picks);
  out.patient = patient.id;
  let unknown = patient.unknown;
  if (typeof out.practitioner_id === 'string') {
    // Must exist like `patient`: a random well-formed id is a 404.
    const practitioner = reference(world.practitioners, 'prac', picks);
    out.practitioner_id = practitioner.id;
    unknown ||= practitioner.unknown;
  }
  timeSpan(out, picks);
  if (out.start === undefined && out.confirm === true) delete out.confirm;
  return { body: out, unknownReference: unknown };
}

/** Practitioner fields with a valid NPI check digit (the generated ten digits rarely have one). */
function practitionerFields(body: Obj): Obj {
  const out = { ...body };
  if (typeof out.npi === 'string') out.npi = npiWithCheckDigit(out.npi);
  return out;
}

const MOVES: Readonly<Record<string, readonly string[]>> = {
  pending: ['pending', 'booked', 'cancelled', 'entered_in_error'],
  booked: ['booked', 'arrived', 'cancelled', 'noshow', 'entered_in_error'],
};

function updateAppointment(body: Obj, _world: World, picks: Picks): Ruled {
  const fresh: FreshKind = picks.oneIn(2) ? 'appointment-pending' : 'appointment-booked';
  const from = fresh === 'appointment-pending' ? 'pending' : 'booked';
  const out = { ...body };
  const moves = MOVES[from] ?? [];
  if (out.status !== undefined && !moves.includes(String(out.status))) {
    out.status = picks.from(moves);
  }
  timeSpan(out, picks);
  if (out.status !== 'cancelled') delete out.cancellation_reason;
  return { body: out, unknownReference: false, fresh };
}

const CURRENCIES = ['usd', 'eur', 'gbp', 'jpy', 'cad', 'chf', 'aud', 'sek', 'inr', 'brl'];

function submitClaim(body: Obj, world: World, picks: Picks): Ruled {
  const out = structuredClone(body);
  const patient = reference(world.patients, 'pat', picks);
  out.patient = patient.id;
  let unknown = patient.unknown;
  if (out.appointment !== undefined) {
    const index = world.patients.indexOf(patient.id);
    if (index >= 0 && !picks.oneIn(5)) out.appointment = world.appointments[index];
    else unknown = true; // a random well-formed appointment id: 404
  }
  if (out.billing_type === 'self_pay') delete out.insurance;
  else if (out.insurance === undefined || out.insurance === null) {
    out.insurance = { payer_id: 'FUZZPAYER', member_id: `M${picks.below(1e6)}` };
  }
  const provider = out.billing_provider as Obj;
  provider.npi = npiWithCheckDigit(String(provider.npi));
  const diagnoses = out.diagnoses as Obj[];
  diagnoses.forEach((d, i) => {
    d.sequence = i + 1;
  });
  (out.line_items as Obj[]).forEach((line, i) => {
    line.sequence = i + 1;
    line.diagnosis_sequences = (line.diagnosis_sequences as number[]).map(
      (d) => ((d - 1) % diagnoses.length) + 1,
    );
  });
  out.currency = picks.from(CURRENCIES);
  return { body: out, unknownReference: unknown };
}

function webhookFields(body: Obj, picks: Picks): Obj {
  const out = { ...body };
  if (out.url !== undefined) {
    const host = picks.from(['127.0.0.1', 'localhost', '[::1]']);
    // Only the generated path is kept (a `urn:` has none that starts with `/`).
    const path = new URL(String(out.url)).pathname.replace(/^\/?/, '/');
    out.url = `${picks.oneIn(2) ? 'http' : 'https'}://${host}:9${path}`;
  }
  const events = out.enabled_events as string[] | undefined;
  if (events?.includes('*') && events.length > 1) out.enabled_events = ['*'];
  return out;
}

function patientReference(body: Obj, world: World, picks: Picks): Ruled {
  const patient = reference(world.patients, 'pat', picks);
  return { body: { ...body, patient: patient.id }, unknownReference: patient.unknown };
}

/** The rules by operation; operations without body rules are absent. */
export const BODY_RULES: Readonly<Record<string, Rule>> = {
  createPatient,
  updatePatient: (body) => ({
    body: patientFields(body),
    unknownReference: false,
    fresh: 'patient',
  }),
  searchPatients: (body, world, picks) => {
    if (body.starting_after === undefined) return { body, unknownReference: false };
    // An unknown cursor is still a position in the id order: 200 with a page, not 404.
    const cursor = reference(world.patients, 'pat', picks);
    return { body: { ...body, starting_after: cursor.id }, unknownReference: false };
  },
  createPractitioner: (body) => ({ body: practitionerFields(body), unknownReference: false }),
  updatePractitioner: (body) => ({
    body: practitionerFields(body),
    unknownReference: false,
    fresh: 'practitioner',
  }),
  createAppointment,
  updateAppointment,
  submitClaim,
  createWebhook: (body, _world, picks) => ({
    body: webhookFields(body, picks),
    unknownReference: false,
  }),
  updateWebhook: (body, _world, picks) => ({
    body: webhookFields(body, picks),
    unknownReference: false,
    fresh: 'webhook',
  }),
  createToken: (body) => ({
    body: { ...body, patient: patientFields(body.patient as Obj) },
    unknownReference: false,
  }),
  createEphemeralKey: patientReference,
};
