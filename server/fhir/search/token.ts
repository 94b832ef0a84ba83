/**
 * FHIR token and reference search values: `identifier=system|value` (or `value` under any
 * system), `patient=Patient/{id}` (or the id alone).
 */
import { FhirError } from '../errors.js';

/** `system|value` → both; `value` → the value under any system. */
export function identifierToken(text: string): { system?: string; value: string } {
  const bar = text.indexOf('|');
  if (bar === -1) return { value: text };
  const system = text.slice(0, bar);
  const value = text.slice(bar + 1);
  if (value === '') {
    throw new FhirError(400, 'not-supported', 'identifier needs a value (system|value or value).', {
      expression: 'identifier',
    });
  }
  return system === '' ? { value } : { system, value };
}
