/**
 * The patient resource (docs/design.md#resources): the place to change what a patient is to
 * the storage (its row and the child tables that index given names and identifiers), the lists
 * and searches, the audit trail and the FHIR face. The `/v1` rules are
 * server/domain/patients.ts; the FHIR fields, server/fhir/mapping/patient.ts.
 */
import type { components, Readable } from '../../generated/types.js';
import type { Db } from '../db/types.js';
import { identifierToken } from '../fhir/search/token.js';
import { equals, jsonFieldEquals, type Operator, startsWith } from '../sql/criteria.js';
import { ConflictError } from '../sql/errors.js';
import { normalizeEmail, normalizeName } from '../sql/text-match.js';
import { idSearch, referenceSearch, resource, type UniqueRule } from './resource.js';

/** A patient as stored: the `/v1` object of its last write (schema `Patient`). */
export type StoredPatient = Readable<components['schemas']['Patient']>;

/** An identifier criterion: `system` may be left out to match the value under any system. */
export interface IdentifierCriterion {
  system?: string;
  value: string;
}

/** The value type of each criterion patient lists and searches filter on. */
export interface PatientCriteria {
  id: string;
  active: boolean;
  familyName: string;
  givenName: string;
  birthDate: string;
  email: string;
  phone: string;
  identifier: IdentifierCriterion;
  gender: string;
}

/** The prefix of patient ids, written once: the resource, its FHIR `_id` and references use it. */
const PREFIX = 'pat';

const MRN: UniqueRule = {
  reason: 'mrn_duplicate',
  message: 'A patient with this medical record number already exists.',
  param: 'identifiers',
};

const namePrefix: Operator<string> = (column, value, p, dialect) =>
  startsWith(column, normalizeName(value), p, dialect);
const sameEmail: Operator<string> = (column, value, p, dialect) =>
  equals(column, normalizeEmail(value), p, dialect);

/** A patient whose given name (any of them) starts with the value, case-insensitively. */
const matchesGivenName: Operator<string> = (column, value, p, dialect) =>
  `EXISTS (SELECT 1 FROM patient_given_names g WHERE g.patient_id = patients.id
        AND g.livemode = patients.livemode AND ${startsWith(`g.${column}`, normalizeName(value), p, dialect)})`;

/** A patient with the identifier (under its system when one is given). */
const matchesIdentifier: Operator<IdentifierCriterion> = (column, identifier, p) => {
  const system =
    identifier.system === undefined ? '' : ` AND i.system = ${p.add(identifier.system)}`;
  return `EXISTS (SELECT 1 FROM patient_identifiers i WHERE i.patient_id = patients.id
        AND i.livemode = patients.livemode AND i.${column} = ${p.add(identifier.value)}${system})`;
};

/**
 * `ConflictError('mrn_duplicate')` when an `MR` identifier with the same system and value
 * already belongs to another patient of the same mode.
 */
async function assertNoMrnConflict(tx: Db, patient: StoredPatient): Promise<void> {
  for (const identifier of patient.identifiers ?? []) {
    if (identifier.type !== 'MR') continue;
    const clash = await tx.get(
      `SELECT patient_id FROM patient_identifiers WHERE livemode = $1 AND system = $2
        AND value = $3 AND type = 'MR' AND patient_id <> $4`,
      [patient.livemode, identifier.system ?? '', identifier.value, patient.id],
    );
    if (clash) throw new ConflictError(MRN.reason, MRN.message, MRN.param);
  }
}

/** The identifier rows: the same MRN listed twice on one patient is one MRN, not a clash. */
function identifierRows(patient: StoredPatient) {
  const seenMrn = new Set<string>();
  const rows = [];
  for (const [position, identifier] of (patient.identifiers ?? []).entries()) {
    const type = identifier.type ?? null;
    const system = identifier.system ?? '';
    if (type === 'MR') {
      const key = `${system}\u0000${identifier.value}`;
      if (seenMrn.has(key)) continue;
      seenMrn.add(key);
    }
    rows.push({ position, type, system, value: identifier.value });
  }
  return rows;
}

export const PATIENT = resource<StoredPatient, PatientCriteria>()({
  name: 'patient',
  table: 'patients',
  prefix: PREFIX,
  readScope: 'patients:read',
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
    id: { column: 'id', op: equals },
    active: { column: 'active', op: equals },
    familyName: { column: 'family_norm', op: namePrefix },
    givenName: { column: 'given_norm', op: matchesGivenName },
    birthDate: { column: 'birth_date', op: equals },
    email: { column: 'email_norm', op: sameEmail },
    phone: { column: 'phone', op: equals },
    identifier: { column: 'value', op: matchesIdentifier },
    gender: { column: 'gender', op: jsonFieldEquals },
  },
  listQuery: { active: 'active' },
  audited: ['id'],
  events: ['patient.created', 'patient.updated'],
  deferInsert: true,
  beforeWrite: assertNoMrnConflict,
  // Given names are deferred; identifiers are sent alone, as they may clash on the MRN index.
  // FHIR Patient: search by `_id`, name parts, birth date, identifier, gender, email, phone.
  fhir: [
    {
      type: 'Patient',
      search: {
        _id: idSearch(PREFIX),
        family: { criterion: 'familyName', type: 'string', parse: (text: string) => text },
        given: { criterion: 'givenName', type: 'string', parse: (text: string) => text },
        birthdate: {
          criterion: 'birthDate',
          type: 'date',
          parse: (text: string) => text.replace(/^eq/, ''),
        },
        identifier: { criterion: 'identifier', type: 'token', parse: identifierToken },
        gender: { criterion: 'gender', type: 'token', parse: (text: string) => text },
        email: { criterion: 'email', type: 'token', parse: (text: string) => text },
        phone: { criterion: 'phone', type: 'token', parse: (text: string) => text },
      },
    },
  ],
  children: [
    {
      table: 'patient_given_names',
      parent: 'patient_id',
      deferred: true,
      rows: (p) =>
        (p.name?.given ?? []).map((name, position) => ({
          position,
          given_norm: normalizeName(name),
        })),
    },
    { table: 'patient_identifiers', parent: 'patient_id', rows: identifierRows, unique: MRN },
  ],
});

/**
 * How a document that belongs to a patient (an appointment, a claim) keeps, filters and
 * searches that link: the `patient_id` column, set once, and FHIR's `patient=` reference.
 */
export const PATIENT_LINK = {
  column: { name: 'patient_id', value: (doc: { patient: string }) => doc.patient, fixed: true },
  criterion: { column: 'patient_id', op: equals },
  search: referenceSearch<{ patient: string }, 'patient'>('patient', 'Patient', PREFIX),
} as const;
