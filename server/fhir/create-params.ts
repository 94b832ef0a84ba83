/**
 * The `/v1` rules for a FHIR create: the fields a FHIR Patient maps to are checked against
 * `PatientCreateParams`, the schema `POST /v1/patients` validates with (E.164 phone, e-mail
 * format, lengths, identifier types), so both faces accept exactly the same patients. A
 * failure is `422` naming the FHIR element, never the value.
 */
import type { ValidateFunction } from 'ajv';
import { ajvSchemaLookup } from '../../contract/ajv.js';
import { type BoundNode, findBoundViolation, schemaBounds } from '../../contract/schema-bounds.js';
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

let compiled: { validate: ValidateFunction; bounds: BoundNode } | undefined;

function compile(): { validate: ValidateFunction; bounds: BoundNode } {
  const ajv = createValidators(componentSchemas).strict;
  const schema = { $ref: 'urn:openapi:schema:PatientCreateParams' };
  return { validate: ajv.compile(schema), bounds: schemaBounds(schema, ajvSchemaLookup(ajv)) };
}

/** The first problem with `fields`: over a bound (checked first, docs/design.md#validation-cost), else Ajv's. */
function firstProblem(fields: unknown): { path: string; keyword: string } | undefined {
  compiled ??= compile();
  const over = findBoundViolation(fields, compiled.bounds);
  if (over !== undefined) return { path: String(over.path[0] ?? ''), keyword: over.keyword };
  const { validate } = compiled;
  if (validate(fields)) return undefined;
  const first = validate.errors?.[0];
  // Ajv keeps the errors, and with them the values, until its next call; drop them now.
  validate.errors = null;
  return { path: first?.instancePath.split('/')[1] ?? '', keyword: first?.keyword ?? 'schema' };
}

/** Throws `422` unless `fields` are valid `createPatient` fields. */
export function checkPatientCreateFields(fields: unknown): void {
  const first = firstProblem(fields);
  if (first === undefined) return;
  const field = first.path;
  const expression = ELEMENTS[field] ?? 'Patient';
  throw new FhirError(
    422,
    'value',
    `${expression} is not valid for a patient here (${first.keyword}).`,
    {
      expression,
    },
  );
}
