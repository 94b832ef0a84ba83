/**
 * The valid-case rules of the FHIR R4 face (docs/design.md#fhir-r4), which the schemas cannot
 * say, written from the spec's prose like valid-rules.ts:
 *
 * - ids are ours with `_` as `-` (`pat-01…`): path ids, `_id`, `_cursor` (a `next` link's is
 *   the last entry's id of the searched type), `patient` (`Patient/` optional) and `request`
 *   (`Claim/` optional) name set-up objects in that form, or on purpose a random well-formed
 *   one (a read answers 404, a search an empty or shorter page);
 * - date parameters name days that exist (the pattern lets `2026-02-31` and `T99:99` through),
 *   with a real time and offset when they carry one;
 * - `identifier=system|value` needs a value after the bar;
 * - a created Patient is one our records can hold: one name with a family, identifier types
 *   coded in v2-0203 with a system, at most one e-mail and one phone, one address, every field
 *   within `POST /v1/patients`'s rules. The body is therefore drawn as `PatientCreateParams`
 *   (with createPatient's rules) and written in FHIR form by the mapping the spec documents.
 */
import type { RouteDefinition } from '../../contract/route-types.js';
import { ID_PREFIXES, toFhirId } from '../../server/fhir/ids.js';
import { FHIR_BASE as FHIR_BASE_PATH } from '../../server/fhir/plugin.js';
import { Picks, reference } from './valid-rules.js';
import type { World } from './world.js';

const FHIR_BASE = `${FHIR_BASE_PATH}/`;

/** The id prefix behind each FHIR resource type: the server's mapping (server/fhir/ids.ts). */
const PREFIXES: Readonly<Record<string, string>> = ID_PREFIXES;

const WORLD_KEYS: Readonly<Record<string, keyof World>> = {
  pat: 'patients',
  prac: 'practitioners',
  appt: 'appointments',
  clm: 'claims',
};

/** The resource type of a FHIR route (`/fhir/R4/Patient/{id}` → `Patient`), else undefined. */
export function fhirType(route: RouteDefinition): string | undefined {
  if (!route.path.startsWith(FHIR_BASE)) return undefined;
  const type = route.path.slice(FHIR_BASE.length).split('/')[0] ?? '';
  return PREFIXES[type] === undefined ? undefined : type;
}

/** Our id in FHIR form. */
const toFhirForm = toFhirId;

/** A set-up object of `type` in FHIR form, or a random well-formed one (`unknown`). */
export function fhirReference(
  type: string,
  world: World,
  picks: Picks,
): { id: string; unknown: boolean } {
  const prefix = PREFIXES[type] ?? 'x';
  const key = WORLD_KEYS[prefix];
  const found = reference(key === undefined ? [] : world[key], prefix, picks);
  return { id: toFhirForm(found.id), unknown: found.unknown };
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** A day that exists, 1900-01-01 to 2099-12-28 (so `birthdate` is mostly in the past too). */
function realDay(picks: Picks): string {
  const year = 1900 + picks.below(200);
  const month = 1 + picks.below(12);
  const day = 1 + picks.below(MONTH_DAYS[month - 1] ?? 28);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** A date search value kept to its generated prefix and shape, with a real day and time. */
function realDateValue(generated: string, picks: Picks): string {
  const prefix = /^(eq|gt|ge|lt|le|sa|eb)/.exec(generated)?.[1] ?? '';
  const day = realDay(picks);
  if (!generated.includes('T')) return `${prefix}${day}`;
  const seconds = picks.oneIn(2) ? `:${pad(picks.below(60))}` : '';
  const zone = picks.oneIn(2)
    ? 'Z'
    : `${picks.oneIn(2) ? '+' : '-'}${pad(picks.below(14))}:${pad(picks.from([0, 30, 45]))}`;
  return `${prefix}${day}T${pad(picks.below(24))}:${pad(picks.below(60))}${seconds}${zone}`;
}

type Query = Record<string, unknown>;

/** Applies the FHIR rules above to a schema-valid query of a FHIR search, in place. */
export function fhirQuery(
  type: string,
  query: Query,
  world: World,
  draws: readonly number[],
): void {
  const picks = new Picks(draws);
  if (query._cursor !== undefined) query._cursor = fhirReference(type, world, picks).id;
  if (query._id !== undefined) query._id = fhirReference(type, world, picks).id;
  if (query.patient !== undefined) {
    const id = fhirReference('Patient', world, picks).id;
    query.patient = picks.oneIn(2) ? `Patient/${id}` : id;
  }
  if (query.request !== undefined) {
    const id = fhirReference('Claim', world, picks).id;
    query.request = picks.oneIn(2) ? `Claim/${id}` : id;
  }
  for (const name of ['date', 'created'] as const) {
    const values = query[name];
    if (Array.isArray(values)) query[name] = values.map((v) => realDateValue(String(v), picks));
  }
  if (typeof query.birthdate === 'string') {
    query.birthdate = `${query.birthdate.startsWith('eq') ? 'eq' : ''}${realDay(picks)}`;
  }
  if (typeof query.identifier === 'string' && query.identifier.endsWith('|')) {
    query.identifier = `${query.identifier}x`;
  }
}

type Obj = Record<string, unknown>;

const V2_0203 = 'http://terminology.hl7.org/CodeSystem/v2-0203';

/**
 * A FHIR Patient for `createPatient` fields (already valid for `POST /v1/patients`), written
 * as the spec's mapping documents (docs/design.md#fhir-r4, Patient): `identifiers` →
 * `identifier` (type coded in v2-0203), `name` → one HumanName, `email`/`phone` → `telecom`,
 * `birth_date` → `birthDate`, `address` → one Address. `metadata` has no FHIR element.
 */
export function fhirPatientOf(fields: Obj): Obj {
  const out: Obj = { resourceType: 'Patient' };
  const identifiers = fields.identifiers as Obj[] | undefined;
  if (identifiers !== undefined && identifiers.length > 0) {
    out.identifier = identifiers.map((i) => ({
      type: { coding: [{ system: V2_0203, code: i.type }] },
      system: i.system,
      value: i.value,
    }));
  }
  if (fields.active !== undefined) out.active = fields.active;
  const name = fields.name as Obj;
  const human: Obj = { family: name.family };
  for (const part of ['given', 'prefix', 'suffix'] as const) {
    const list = name[part] as string[] | undefined;
    if (list !== undefined && list.length > 0) human[part] = list;
  }
  out.name = [human];
  const telecom: Obj[] = [];
  if (typeof fields.email === 'string') telecom.push({ system: 'email', value: fields.email });
  if (typeof fields.phone === 'string') telecom.push({ system: 'phone', value: fields.phone });
  if (telecom.length > 0) out.telecom = telecom;
  if (typeof fields.gender === 'string') out.gender = fields.gender;
  if (typeof fields.birth_date === 'string') out.birthDate = fields.birth_date;
  const a = fields.address as Obj | null | undefined;
  if (a !== undefined && a !== null) {
    const address: Obj = {};
    const line = [a.line1, a.line2].filter((l) => typeof l === 'string' && l !== '');
    if (line.length > 0) address.line = line;
    if (typeof a.city === 'string') address.city = a.city;
    if (typeof a.state === 'string') address.state = a.state;
    if (typeof a.postal_code === 'string') address.postalCode = a.postal_code;
    if (typeof a.country === 'string') address.country = a.country;
    out.address = [address];
  }
  return out;
}
