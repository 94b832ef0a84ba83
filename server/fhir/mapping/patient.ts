/**
 * Patient ↔ FHIR R4 Patient, field by field (docs/design.md#fhir-r4). Reads map the stored
 * record the repository returns; creates map a FHIR Patient back onto `createPatient`'s
 * fields. Not mapped: `metadata` and `livemode` (no FHIR element; the key decides the mode),
 * `created` (FHIR Patient has no such element; `meta.lastUpdated` is `updated`).
 */
import type { components } from '../../../generated/types.js';
import type { StoredPatient } from '../../resources/patient.js';
import { coded, codeOf, notStorable } from './common.js';
import type { FieldMapping } from './fields.js';

type Schemas = components['schemas'];
export type FhirPatient = Schemas['FhirPatient'];
/** A Patient as a client sends it to `createFhirPatient`. */
export type FhirPatientCreate = Schemas['FhirPatientCreate'];
type IdentifierType = Schemas['PatientIdentifier']['type'];

/** HL7 v2 table 0203, the identifier types `/v1` uses. */
export const V2_IDENTIFIER_TYPES = 'http://terminology.hl7.org/CodeSystem/v2-0203';
const IDENTIFIER_TYPES: readonly string[] = ['MR', 'MB', 'SS', 'DL', 'PPN', 'PI', 'PT', 'AN'];

/** FHIR lists may not be empty: an empty list is left out. */
function nonEmpty<T>(list: readonly T[] | null | undefined): T[] | undefined {
  return list && list.length > 0 ? [...list] : undefined;
}

/** A `/v1` name (HumanName) as FHIR's: empty lists left out (a practitioner's name too). */
export function fhirHumanName(stored: StoredPatient['name']): FhirPatient['name'][number] {
  const name: FhirPatient['name'][number] = { family: stored.family };
  const given = nonEmpty(stored.given);
  const prefix = nonEmpty(stored.prefix);
  const suffix = nonEmpty(stored.suffix);
  if (given) name.given = given;
  if (prefix) name.prefix = prefix;
  if (suffix) name.suffix = suffix;
  return name;
}

/** The elements fields map to (the server sets `resourceType`, `id` and `meta`). */
type PatientElements = Omit<FhirPatient, 'resourceType' | 'id' | 'meta'>;
type Field = FieldMapping<StoredPatient, PatientElements>;

/** Each stored field and its FHIR elements, both ways. */
export const PATIENT_FIELDS: readonly Field[] = [
  {
    field: 'identifiers',
    toFhir: (p) => {
      const identifier = nonEmpty(p.identifiers)?.map((i) => ({
        type: coded(V2_IDENTIFIER_TYPES, i.type),
        system: i.system,
        value: i.value,
      }));
      return identifier ? { identifier } : {};
    },
    fromFhir: (r) => ({
      identifiers: (r.identifier ?? []).map((i, n) => {
        const type = codeOf(i.type, V2_IDENTIFIER_TYPES);
        if (type === undefined || !IDENTIFIER_TYPES.includes(type)) {
          throw notStorable(
            `Patient.identifier[${n}].type`,
            `needs a coding of ${V2_IDENTIFIER_TYPES} (${IDENTIFIER_TYPES.join(', ')}).`,
          );
        }
        if (i.system === undefined)
          throw notStorable(`Patient.identifier[${n}].system`, 'is required.');
        return { type: type as IdentifierType, system: i.system, value: i.value };
      }),
    }),
  },
  {
    field: 'active',
    toFhir: (p) => ({ active: p.active }),
    fromFhir: (r) => (r.active === undefined ? {} : { active: r.active }),
  },
  {
    field: 'name',
    toFhir: (p) => ({ name: [fhirHumanName(p.name)] }),
    fromFhir: (r) => {
      if (r.name === undefined) return {};
      if (r.name.length !== 1) throw notStorable('Patient.name', 'exactly one name is kept.');
      const [name] = r.name;
      if (name?.family === undefined) throw notStorable('Patient.name[0].family', 'is required.');
      return {
        name: {
          family: name.family,
          ...(name.given ? { given: name.given } : {}),
          ...(name.prefix ? { prefix: name.prefix } : {}),
          ...(name.suffix ? { suffix: name.suffix } : {}),
        },
      };
    },
  },
  {
    field: 'email, phone',
    toFhir: (p) => {
      const telecom: NonNullable<FhirPatient['telecom']> = [];
      if (p.email !== null) telecom.push({ system: 'email', value: p.email });
      if (p.phone !== null) telecom.push({ system: 'phone', value: p.phone });
      return telecom.length > 0 ? { telecom } : {};
    },
    fromFhir: (r) => {
      const out: Partial<StoredPatient> = {};
      for (const [n, point] of (r.telecom ?? []).entries()) {
        const key = point.system === 'email' ? 'email' : 'phone';
        if (out[key] !== undefined)
          throw notStorable(`Patient.telecom[${n}]`, `one ${point.system} is kept.`);
        out[key] = point.value;
      }
      return out;
    },
  },
  {
    field: 'gender',
    toFhir: (p) => (p.gender === null ? {} : { gender: p.gender }),
    fromFhir: (r) => (r.gender === undefined ? {} : { gender: r.gender }),
  },
  {
    field: 'birth_date',
    toFhir: (p) => (p.birth_date === null ? {} : { birthDate: p.birth_date }),
    fromFhir: (r) => (r.birthDate === undefined ? {} : { birth_date: r.birthDate }),
  },
  {
    field: 'address',
    toFhir: (p) => {
      const a = p.address;
      if (a === null) return {};
      const address: NonNullable<FhirPatient['address']>[number] = {};
      const line = [a.line1, a.line2].filter((l): l is string => typeof l === 'string');
      if (line.length > 0) address.line = line;
      if (a.city) address.city = a.city;
      if (a.state) address.state = a.state;
      if (a.postal_code) address.postalCode = a.postal_code;
      if (a.country) address.country = a.country;
      return Object.keys(address).length > 0 ? { address: [address] } : {};
    },
    fromFhir: (r) => {
      if (r.address === undefined) return {};
      const [a] = r.address;
      if (r.address.length !== 1 || a === undefined)
        throw notStorable('Patient.address', 'one address is kept.');
      return {
        address: {
          ...(a.line?.[0] === undefined ? {} : { line1: a.line[0] }),
          ...(a.line?.[1] === undefined ? {} : { line2: a.line[1] }),
          ...(a.city === undefined ? {} : { city: a.city }),
          ...(a.state === undefined ? {} : { state: a.state }),
          ...(a.postalCode === undefined ? {} : { postal_code: a.postalCode }),
          ...(a.country === undefined ? {} : { country: a.country }),
        },
      };
    },
  },
];
