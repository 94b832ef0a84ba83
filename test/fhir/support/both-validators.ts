/**
 * The two FHIR validators the project checks its resources with, as one list of problems:
 * Medplum's `validateResource` with HL7's R4 definitions plus the required-binding codes
 * (support/required-bindings.ts), and FHIR.js (npm `fhir`, its own R4 profiles and value sets).
 */
import { Fhir } from 'fhir';
import { validate } from './r4-definitions.js';
import { checkRequiredBindings } from './required-bindings.js';

export type Resource = { resourceType: string } & Record<string, unknown>;

const fhirJs = new Fhir();

/** FHIR.js's errors for a resource (unknown properties are errors too). */
export function fhirJsErrors(resource: unknown): string[] {
  return fhirJs
    .validate(resource as object, { errorOnUnexpected: true })
    .messages.filter((m) => m.severity === 'error')
    .map((m) => `FHIR.js ${m.location}: ${m.message}`);
}

/** Both validators' errors and the binding problems of a resource: all must be empty. */
export function problems(resource: Resource): string[] {
  const issues = validate(resource)
    .filter((i) => i.severity === 'error' || i.severity === 'fatal')
    .map((i) => `${i.expression?.join(',')}: ${i.diagnostics}`);
  const bindings = checkRequiredBindings(resource).problems.map(
    (p) => `${p.path}: ${p.code} not in ${p.valueSet}`,
  );
  return [...issues, ...bindings, ...fhirJsErrors(resource)];
}
