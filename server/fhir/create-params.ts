/**
 * The `/v1` rules for a FHIR create: the fields a FHIR Patient maps to are checked against
 * `PatientCreateParams`, the schema `POST /v1/patients` validates with (E.164 phone, e-mail
 * format, lengths, identifier types), so both faces accept exactly the same patients. A
 * failure is `422` naming the FHIR element, never the value.
 */
import type { ValidateFunction } from 'ajv';
import { componentSchemas } from '../../generated/routes.js';
import { createValidators } from '../http/validation.js';
import { FhirError } from './errors.js';

/** The FHIR element of each `createPatient` field. */
const ELEMENTS: Readonly<Record<string, string>> = {
  identifiers: 'Patient.identifier',
  name: 'Patient.name',
  birth_date: 'Patient.birthDate',
  gender: 'Patient.gender',
  email: 'Patient.telecom',
  phone: 'Patient.telecom',
  address: 'Patient.address',
  active: 'Patient.active',
};

let validate: ValidateFunction | undefined;

/** Throws `422` unless `fields` are valid `createPatient` fields. */
export function checkPatientCreateFields(fields: unknown): void {
  validate ??= createValidators(componentSchemas).strict.compile({
    $ref: 'urn:openapi:schema:PatientCreateParams',
  });
  if (validate(fields)) return;
  const first = validate.errors?.[0];
  const field = first?.instancePath.split('/')[1] ?? '';
  const expression = ELEMENTS[field] ?? 'Patient';
  throw new FhirError(
    422,
    'value',
    `${expression} is not valid for a patient here (${first?.keyword ?? 'schema'}).`,
    {
      expression,
    },
  );
}
