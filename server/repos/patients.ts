/**
 * What the patient resource (server/resources/patient.ts) keeps beyond its row: the child
 * tables that index given names and identifiers, the medical record number rule, and the
 * criteria that search those tables. Values travel only as bound parameters.
 */
import { runDeferred } from '../db/deferred.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db } from '../db/types.js';
import type { StoredPatient } from '../resources/patient.js';
import { type Operator, startsWith } from './criteria.js';
import { ConflictError } from './errors.js';
import { normalizeName } from './text-match.js';

/** An identifier criterion: `system` may be left out to match the value under any system. */
export interface IdentifierCriterion {
  system?: string;
  value: string;
}

const MRN_MESSAGE = 'A patient with this medical record number already exists.';

/** A patient whose given name (any of them) starts with the value, case-insensitively. */
export const matchesGivenName: Operator<string> = (column, value, p, dialect) =>
  `EXISTS (SELECT 1 FROM patient_given_names g WHERE g.patient_id = patients.id
        AND g.livemode = patients.livemode AND ${startsWith(`g.${column}`, normalizeName(value), p, dialect)})`;

/** A patient with the identifier (under its system when one is given). */
export const matchesIdentifier: Operator<IdentifierCriterion> = (column, identifier, p) => {
  const system =
    identifier.system === undefined ? '' : ` AND i.system = ${p.add(identifier.system)}`;
  return `EXISTS (SELECT 1 FROM patient_identifiers i WHERE i.patient_id = patients.id
        AND i.livemode = patients.livemode AND i.${column} = ${p.add(identifier.value)}${system})`;
};

/**
 * `ConflictError('mrn_duplicate')` when an `MR` identifier with the same system and value
 * already belongs to another patient of the same mode.
 */
export async function assertNoMrnConflict(tx: Db, patient: StoredPatient): Promise<void> {
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

/** Drops a patient's child rows before they are written again. */
export async function clearPatientChildren(tx: Db, patient: StoredPatient): Promise<void> {
  await tx.run('DELETE FROM patient_given_names WHERE patient_id = $1', [patient.id]);
  await tx.run('DELETE FROM patient_identifiers WHERE patient_id = $1', [patient.id]);
}

/** Writes a patient's given names (deferred) and identifiers (sent alone: they may clash). */
export async function writePatientChildren(tx: Db, patient: StoredPatient): Promise<void> {
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
