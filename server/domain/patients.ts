/**
 * Patient objects (docs/design.md#ids, the Patients tag of the spec): building one from create
 * parameters, applying an update, and the checks JSON Schema cannot state. Pure functions: handlers
 * do the storage.
 */
import type { components, Readable } from '../../generated/types.js';
import { ApiError } from '../errors.js';
import { checkMetadata, mergeMetadata } from './serialize.js';

/** A patient as the API returns it. */
export type Patient = Readable<components['schemas']['Patient']>;
/** `createPatient` patient fields (also what an intake token carries). */
export type PatientCreateParams = components['schemas']['PatientCreateParams'];
/** `updatePatient` body. */
export type PatientUpdateParams = components['schemas']['PatientUpdateParams'];

type HumanName = components['schemas']['HumanName'];
type AddressInput = components['schemas']['Address'];

/** A name with every list present, as responses show it (a patient's and a practitioner's). */
export function fullName(name: HumanName): Patient['name'] {
  return {
    family: name.family,
    given: [...(name.given ?? [])],
    prefix: [...(name.prefix ?? [])],
    suffix: [...(name.suffix ?? [])],
  };
}

/** An address with every field present (`null` when unset), or `null`. */
function fullAddress(address: AddressInput | undefined): Patient['address'] {
  if (address === undefined || address === null) return null;
  return {
    line1: address.line1 ?? null,
    line2: address.line2 ?? null,
    city: address.city ?? null,
    state: address.state ?? null,
    postal_code: address.postal_code ?? null,
    country: address.country ?? null,
  };
}

/**
 * `400 parameter_invalid` for a birth date after today (UTC). The message names the field
 * only, never the date.
 */
function checkBirthDate(birthDate: string | null | undefined, nowMs: number): void {
  if (birthDate === null || birthDate === undefined) return;
  const today = new Date(nowMs).toISOString().slice(0, 10);
  if (birthDate > today) {
    throw new ApiError('parameter_invalid', {
      param: 'birth_date',
      message: 'birth_date cannot be in the future.',
    });
  }
}

/**
 * Checks the parts of patient fields the schema cannot (birth date not in the future, metadata
 * key length). Used by `createPatient` and `createToken`, which validates "as createPatient
 * would", so a token never carries fields its exchange would refuse.
 */
export function checkPatientFields(
  fields: PatientCreateParams,
  nowMs: number,
  paramPrefix = '',
): void {
  try {
    checkBirthDate(fields.birth_date, nowMs);
    checkMetadata(fields.metadata);
  } catch (error) {
    if (paramPrefix !== '' && error instanceof ApiError && error.param !== null) {
      // Nested fields are named from the root in bracket notation (`patient[birth_date]`).
      throw new ApiError(error.code, {
        param: `${paramPrefix}[${error.param}]`,
        message: error.message,
      });
    }
    throw error;
  }
}

/** A new patient object from checked create fields. */
export function buildPatient(
  fields: PatientCreateParams,
  meta: { id: string; livemode: boolean; nowSeconds: number },
): Patient {
  return {
    id: meta.id,
    object: 'patient',
    livemode: meta.livemode,
    created: meta.nowSeconds,
    updated: meta.nowSeconds,
    identifiers: (fields.identifiers ?? []).map((i) => ({ ...i })),
    name: fullName(fields.name),
    birth_date: fields.birth_date ?? null,
    gender: fields.gender ?? null,
    email: fields.email ?? null,
    phone: fields.phone ?? null,
    address: fullAddress(fields.address),
    active: fields.active ?? true,
    metadata: { ...(fields.metadata ?? {}) },
  };
}

/**
 * The patient after an update, or the same object when nothing changed (`updated` moves only
 * when something did). `identifiers`, `name` and `address` replace the stored value whole;
 * `null` clears a nullable field; `metadata` is merged.
 */
export function applyPatientUpdate(
  stored: Patient,
  update: PatientUpdateParams,
  nowMs: number,
): Patient {
  checkBirthDate(update.birth_date, nowMs);
  const next: Patient = { ...stored };
  if (update.identifiers !== undefined)
    next.identifiers = update.identifiers.map((i) => ({ ...i }));
  if (update.name !== undefined) next.name = fullName(update.name);
  if (update.birth_date !== undefined) next.birth_date = update.birth_date;
  if (update.gender !== undefined) next.gender = update.gender;
  if (update.email !== undefined) next.email = update.email;
  if (update.phone !== undefined) next.phone = update.phone;
  if (update.address !== undefined) next.address = fullAddress(update.address);
  if (update.active !== undefined) next.active = update.active;
  next.metadata = mergeMetadata(stored.metadata, update.metadata);
  if (JSON.stringify(next) === JSON.stringify(stored)) return stored;
  next.updated = Math.max(Math.floor(nowMs / 1000), stored.updated);
  return next;
}
