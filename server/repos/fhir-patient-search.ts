/**
 * Patient search for FHIR (`GET /fhir/R4/Patient`, docs/design.md#fhir-r4): the criteria of
 * `searchPatients` plus `_id` and `gender`, which `/v1` does not search on. A function of its
 * own rather than new options of `searchPatients`, so the `/v1` search's SQL (and its plans)
 * stay as they are. Values travel only as bound parameters. `gender` has no column: it is read
 * from the stored JSON, so it narrows the other criteria rather than being an index range.
 */
import type { Db } from '../db/types.js';
import { type CountedPage, paginateCounted } from './pagination.js';
import type { PatientSearchParams } from './patients.js';
import { type StoredJson, storedJson } from './rows.js';
import type { SqlParams } from './sql-params.js';
import { normalizeEmail, normalizeName, prefixUpperBound } from './text-match.js';

export interface FhirPatientSearchParams extends PatientSearchParams {
  id?: string;
  gender?: 'male' | 'female' | 'other' | 'unknown';
}

function prefixClause(column: string, prefix: string, p: SqlParams): string {
  const lower = `${column} >= ${p.add(prefix)}`;
  const upper = prefixUpperBound(prefix);
  return upper === undefined ? lower : `${lower} AND ${column} < ${p.add(upper)}`;
}

/** Patients matching every given criterion, newest first, as stored JSON text, and how many. */
export function searchPatientsForFhir(
  db: Db,
  params: FhirPatientSearchParams,
  countOnly = false,
): Promise<CountedPage<StoredJson>> {
  const filters = [(p: SqlParams) => `p.livemode = ${p.add(params.livemode)}`];
  const { id, familyName, givenName, birthDate, email, phone, identifier, gender } = params;
  if (id !== undefined) filters.push((p) => `p.id = ${p.add(id)}`);
  if (familyName !== undefined) {
    filters.push((p) => prefixClause('p.family_norm', normalizeName(familyName), p));
  }
  if (givenName !== undefined) {
    filters.push(
      (p) => `EXISTS (SELECT 1 FROM patient_given_names g WHERE g.patient_id = p.id
        AND g.livemode = p.livemode AND ${prefixClause('g.given_norm', normalizeName(givenName), p)})`,
    );
  }
  if (birthDate !== undefined) filters.push((p) => `p.birth_date = ${p.add(birthDate)}`);
  if (email !== undefined) filters.push((p) => `p.email_norm = ${p.add(normalizeEmail(email))}`);
  if (phone !== undefined) filters.push((p) => `p.phone = ${p.add(phone)}`);
  if (identifier !== undefined) {
    filters.push((p) => {
      const system =
        identifier.system === undefined ? '' : ` AND i.system = ${p.add(identifier.system)}`;
      return `EXISTS (SELECT 1 FROM patient_identifiers i WHERE i.patient_id = p.id
        AND i.livemode = p.livemode AND i.value = ${p.add(identifier.value)}${system})`;
    });
  }
  if (gender !== undefined) {
    const field =
      db.dialect === 'postgres'
        ? "(p.data::json ->> 'gender')"
        : "json_extract(p.data, '$.gender')";
    filters.push((p) => `${field} = ${p.add(gender)}`);
  }
  return paginateCounted(
    db,
    {
      from: 'patients p',
      idColumn: 'p.id',
      createdColumn: 'p.created',
      select: 'p.id, p.data',
      filters,
      list: params,
      map: storedJson,
    },
    countOnly,
  );
}
