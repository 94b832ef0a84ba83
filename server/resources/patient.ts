/**
 * The patient resource (docs/design.md#resources): the place to change what a patient is to
 * the storage, the lists and searches, the audit trail and the FHIR face. The `/v1` rules are
 * server/domain/patients.ts; the FHIR fields, server/fhir/mapping/patient.ts.
 */
import type { Db } from '../db/types.js';
import type { Patient } from '../domain/patients.js';
import { resourceMissing } from '../domain/serialize.js';
import { fromFhirId } from '../fhir/ids.js';
import { identifierToken, referenceParam } from '../fhir/search/token.js';
import { BY_ID, equals, jsonFieldEquals, type Operator, startsWith } from '../repos/criteria.js';
import {
  assertNoMrnConflict,
  clearPatientChildren,
  type IdentifierCriterion,
  matchesGivenName,
  matchesIdentifier,
  writePatientChildren,
} from '../repos/patients.js';
import { getRecord } from '../repos/records.js';
import { normalizeEmail, normalizeName } from '../repos/text-match.js';
import type { FhirFace, Resource } from './resource.js';

/** A patient as stored: the `/v1` object of its last write (schema `Patient`). */
export type StoredPatient = Patient;

/** The criteria patient lists and searches filter on. */
export type PatientCriterion =
  | 'id'
  | 'active'
  | 'familyName'
  | 'givenName'
  | 'birthDate'
  | 'email'
  | 'phone'
  | 'identifier'
  | 'gender';

const namePrefix: Operator<string> = (column, value, p, dialect) =>
  startsWith(column, normalizeName(value), p, dialect);
const sameEmail: Operator<string> = (column, value, p, dialect) =>
  equals(column, normalizeEmail(value), p, dialect);

export const PATIENT: Resource<StoredPatient, PatientCriterion> = {
  name: 'patient',
  table: 'patients',
  prefix: 'pat',
  columns: [
    { name: 'active', value: (p) => p.active ?? true },
    { name: 'family_norm', value: (p) => (p.name?.family ? normalizeName(p.name.family) : null) },
    { name: 'birth_date', value: (p) => p.birth_date ?? null },
    { name: 'email_norm', value: (p) => (p.email ? normalizeEmail(p.email) : null) },
    { name: 'phone', value: (p) => p.phone ?? null },
  ],
  // PHI criteria use the normalised columns and a byte-wise prefix range, so each one is an
  // index range scan; `gender` has no column and narrows the others.
  criteria: {
    id: BY_ID,
    active: { column: 'active', op: equals },
    familyName: { column: 'family_norm', op: namePrefix },
    givenName: { column: 'given_norm', op: matchesGivenName },
    birthDate: { column: 'birth_date', op: equals },
    email: { column: 'email_norm', op: sameEmail },
    phone: { column: 'phone', op: equals },
    identifier: { column: 'value', op: matchesIdentifier },
    gender: { column: 'gender', op: jsonFieldEquals },
  },
  listCriteria: ['active'],
  audited: ['id'],
  events: ['patient.created', 'patient.updated'],
  deferInsert: true,
  beforeWrite: assertNoMrnConflict,
  children: { write: writePatientChildren, clear: clearPatientChildren },
};

/** FHIR Patient: search by `_id`, name parts, birth date, identifier, gender, email, phone. */
export const PATIENT_FHIR: FhirFace<StoredPatient, PatientCriterion> = {
  type: 'Patient',
  search: {
    _id: { criterion: 'id', parse: (text: string) => fromFhirId('Patient', text) ?? null },
    family: { criterion: 'familyName', parse: (text: string) => text },
    given: { criterion: 'givenName', parse: (text: string) => text },
    birthdate: { criterion: 'birthDate', parse: (text: string) => text.replace(/^eq/, '') },
    identifier: {
      criterion: 'identifier',
      parse: (text: string): IdentifierCriterion => identifierToken(text),
    },
    gender: { criterion: 'gender', parse: (text: string) => text },
    email: { criterion: 'email', parse: (text: string) => text },
    phone: { criterion: 'phone', parse: (text: string) => text },
  },
};

/**
 * The patient `id` of this mode, or `404 resource_missing` naming `param` (the key's mode
 * decides: a patient of the other mode does not exist for this key).
 */
export async function requirePatient(
  tx: Db,
  livemode: boolean,
  id: string,
  param = 'patient',
): Promise<StoredPatient> {
  const patient = await getRecord(PATIENT, tx, id, livemode);
  if (patient === undefined) throw resourceMissing('patient', param);
  return patient;
}

/**
 * How a document that belongs to a patient (an appointment, a claim) keeps, filters and
 * searches that link: the `patient_id` column, set once, and FHIR's `patient=` reference.
 */
export const PATIENT_LINK = {
  column: { name: 'patient_id', value: (doc: { patient: string }) => doc.patient, fixed: true },
  criterion: { column: 'patient_id', op: equals },
  search: { criterion: 'patient', parse: (text: string) => referenceParam('Patient', text) },
} as const;
