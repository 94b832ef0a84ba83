import { runDeferred } from '../db/deferred.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db } from '../db/types.js';
import { ConflictError } from './errors.js';
import { type DocChange, type Modified, modifyDoc } from './modify-doc.js';
import { type ListParams, type Page, paginate } from './pagination.js';
import { getDoc, parseData, type StoredJson, storedJson } from './rows.js';
import type { SqlParams } from './sql-params.js';
import { normalizeEmail, normalizeName, prefixUpperBound } from './text-match.js';

/** The fields of a stored patient this repository indexes; the rest is kept as given. */
export interface PatientDoc {
  id: string;
  livemode: boolean;
  created: number;
  updated?: number;
  active?: boolean;
  name?: { family?: string | null; given?: readonly string[] | null } | null;
  birth_date?: string | null;
  email?: string | null;
  phone?: string | null;
  identifiers?: ReadonlyArray<{
    type?: string | null;
    system?: string | null;
    value: string;
  }> | null;
}

export interface PatientListParams extends ListParams {
  livemode: boolean;
  active?: boolean;
}

/** PHI lookup (POST /v1/patients/search): every given criterion must match. */
export interface PatientSearchParams extends ListParams {
  livemode: boolean;
  /** Case-insensitive prefix of the family name. */
  familyName?: string;
  /** Case-insensitive prefix of any given name. */
  givenName?: string;
  birthDate?: string;
  /** `system` may be left out to match the value under any system. */
  identifier?: { system?: string; value: string };
  email?: string;
  phone?: string;
}

const MRN_MESSAGE = 'A patient with this medical record number already exists.';

/**
 * Stores a new patient (the whole object as JSON plus its search columns).
 * Throws `ConflictError('mrn_duplicate')` when an `MR` identifier with the same system and
 * value already belongs to a patient in the same mode. Call inside a transaction.
 */
export async function insertPatient<T extends PatientDoc>(tx: Db, patient: T): Promise<T> {
  await assertNoMrnConflict(tx, patient);
  const columns = indexColumns(patient);
  // Deferred with the given names below (PostgreSQL: one round trip with the write's other
  // deferred rows); an identifier insert, which may meet a concurrent MRN, is sent alone.
  await runDeferred(
    tx,
    `INSERT INTO patients (id, livemode, created, updated, active, family_norm, birth_date,
      email_norm, phone, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      patient.id,
      patient.livemode,
      patient.created,
      patient.updated ?? patient.created,
      patient.active ?? true,
      ...columns,
      JSON.stringify(patient),
    ],
  );
  await writeChildren(tx, patient);
  return patient;
}

/**
 * Changes a stored patient (same id and mode) through `modifyDoc`: `change` gets the patient
 * read under a row lock and returns the patient to store, or `undefined` (or the same object)
 * to leave it. Returns `undefined` when there is none. Same MRN rule as `insertPatient`,
 * ignoring the patient's own identifiers.
 */
export function modifyPatient<T extends PatientDoc>(
  db: Db,
  id: string,
  livemode: boolean,
  change: DocChange<T, T>,
): Promise<Modified<T, T> | undefined> {
  return modifyDoc<T, T>(
    db,
    'patients',
    id,
    livemode,
    async (current) => {
      const next = await change(current);
      return next === current ? undefined : next;
    },
    writePatient,
  );
}

async function writePatient(tx: Db, patient: PatientDoc): Promise<void> {
  await assertNoMrnConflict(tx, patient);
  await tx.run(
    `UPDATE patients SET updated = $1, active = $2, family_norm = $3, birth_date = $4,
      email_norm = $5, phone = $6, data = $7 WHERE id = $8 AND livemode = $9`,
    [
      patient.updated ?? patient.created,
      patient.active ?? true,
      ...indexColumns(patient),
      JSON.stringify(patient),
      patient.id,
      patient.livemode,
    ],
  );
  await tx.run('DELETE FROM patient_given_names WHERE patient_id = $1', [patient.id]);
  await tx.run('DELETE FROM patient_identifiers WHERE patient_id = $1', [patient.id]);
  await writeChildren(tx, patient);
}

/** The stored patient, or `undefined` (also when it belongs to the other mode). */
export async function getPatient<T = PatientDoc>(
  db: Db,
  id: string,
  livemode: boolean,
): Promise<T | undefined> {
  return getDoc<T>(db, 'patients', id, livemode);
}

/**
 * Patients newest first, filtered only on non-PHI fields (`created`, `active`), as their stored
 * JSON text with their ids: the list reply is spliced from it without re-serialising.
 */
export function listPatientsJson(db: Db, params: PatientListParams): Promise<Page<StoredJson>> {
  return paginate(db, {
    from: 'patients',
    select: 'id, data',
    filters: [
      (p) => `livemode = ${p.add(params.livemode)}`,
      (p) => (params.active === undefined ? undefined : `active = ${p.add(params.active)}`),
    ],
    list: params,
    map: storedJson,
  });
}

/**
 * PHI search, newest first. Values travel only as bound parameters, so the SQL text (which
 * may be logged or shown by the engine) never contains them. Names use the normalised
 * columns and a byte-wise prefix range, so each criterion is an index range scan.
 */
export function searchPatients<T = PatientDoc>(
  db: Db,
  params: PatientSearchParams,
): Promise<Page<T>> {
  const filters = [(p: SqlParams) => `p.livemode = ${p.add(params.livemode)}`];
  const { familyName, givenName, email } = params;
  if (familyName !== undefined) {
    filters.push((p) => prefixClause('p.family_norm', normalizeName(familyName), p));
  }
  if (givenName !== undefined) {
    filters.push(
      (p) => `EXISTS (SELECT 1 FROM patient_given_names g WHERE g.patient_id = p.id
        AND g.livemode = p.livemode AND ${prefixClause('g.given_norm', normalizeName(givenName), p)})`,
    );
  }
  if (params.birthDate !== undefined) {
    filters.push((p) => `p.birth_date = ${p.add(params.birthDate)}`);
  }
  if (email !== undefined) {
    filters.push((p) => `p.email_norm = ${p.add(normalizeEmail(email))}`);
  }
  if (params.phone !== undefined) filters.push((p) => `p.phone = ${p.add(params.phone)}`);
  const identifier = params.identifier;
  if (identifier !== undefined) {
    filters.push((p) => {
      const system =
        identifier.system === undefined ? '' : ` AND i.system = ${p.add(identifier.system)}`;
      return `EXISTS (SELECT 1 FROM patient_identifiers i WHERE i.patient_id = p.id
        AND i.livemode = p.livemode AND i.value = ${p.add(identifier.value)}${system})`;
    });
  }
  return paginate(db, {
    from: 'patients p',
    idColumn: 'p.id',
    createdColumn: 'p.created',
    select: 'p.data',
    filters,
    list: params,
    map: parseData<T>,
  });
}

function prefixClause(column: string, prefix: string, p: SqlParams): string {
  const lower = `${column} >= ${p.add(prefix)}`;
  const upper = prefixUpperBound(prefix);
  return upper === undefined ? lower : `${lower} AND ${column} < ${p.add(upper)}`;
}

function indexColumns(
  patient: PatientDoc,
): [string | null, string | null, string | null, string | null] {
  const family = patient.name?.family;
  return [
    family ? normalizeName(family) : null,
    patient.birth_date ?? null,
    patient.email ? normalizeEmail(patient.email) : null,
    patient.phone ?? null,
  ];
}

async function writeChildren(tx: Db, patient: PatientDoc): Promise<void> {
  const given = patient.name?.given ?? [];
  for (const [position, name] of given.entries()) {
    await runDeferred(
      tx,
      'INSERT INTO patient_given_names (patient_id, livemode, position, given_norm) VALUES ($1, $2, $3, $4)',
      [patient.id, patient.livemode, position, normalizeName(name)],
    );
  }
  const seenMrn = new Set<string>();
  for (const [position, identifier] of (patient.identifiers ?? []).entries()) {
    const type = identifier.type ?? null;
    const system = identifier.system ?? '';
    // The same MRN listed twice on one patient is one MRN, not a conflict with itself.
    if (type === 'MR') {
      const key = `${system}\u0000${identifier.value}`;
      if (seenMrn.has(key)) continue;
      seenMrn.add(key);
    }
    try {
      await tx.run(
        `INSERT INTO patient_identifiers (patient_id, livemode, position, type, system, value)
          VALUES ($1, $2, $3, $4, $5, $6)`,
        [patient.id, patient.livemode, position, type, system, identifier.value],
      );
    } catch (err) {
      // A concurrent writer took the MRN between our check and this insert.
      if (isUniqueViolation(err))
        throw new ConflictError('mrn_duplicate', MRN_MESSAGE, 'identifiers');
      throw err;
    }
  }
}

async function assertNoMrnConflict(tx: Db, patient: PatientDoc): Promise<void> {
  for (const identifier of patient.identifiers ?? []) {
    if (identifier.type !== 'MR') continue;
    const clash = await tx.get(
      `SELECT patient_id FROM patient_identifiers WHERE livemode = $1 AND system = $2
        AND value = $3 AND type = 'MR' AND patient_id <> $4`,
      [patient.livemode, identifier.system ?? '', identifier.value, patient.id],
    );
    if (clash) throw new ConflictError('mrn_duplicate', MRN_MESSAGE, 'identifiers');
  }
}
