/**
 * The practitioner resource (docs/design.md#resources): a clinician patients see. Not PHI (a
 * practitioner's name and NPI are public in the NPPES registry), so its name may be a list and
 * FHIR search filter, and its reads are audited as any read is but carry no patient id. The
 * `/v1` rules are server/handlers/practitioners.ts; the FHIR fields,
 * server/fhir/mapping/practitioner.ts.
 */
import type { components, Readable } from '../../generated/types.js';
import { identifierToken } from '../fhir/search/token.js';
import { equals, type Operator, startsWith } from '../sql/criteria.js';
import { normalizeName } from '../sql/text-match.js';
import type { IdentifierCriterion } from './patient.js';
import { idSearch, resource } from './resource.js';

/** A practitioner as stored and returned (schema `Practitioner`). */
export type StoredPractitioner = Readable<components['schemas']['Practitioner']>;

/** The identifier system of the NPI in FHIR. */
export const NPI_SYSTEM = 'http://hl7.org/fhir/sid/us-npi';

/** The value type of each criterion practitioner lists and searches filter on. */
export interface PractitionerCriteria {
  id: string;
  active: boolean;
  familyName: string;
  anyName: string;
  npi: string | null;
}

const namePrefix: Operator<string> = (column, value, p, dialect) =>
  startsWith(column, normalizeName(value), p, dialect);

/** Any name part starting with the value: `name_norm` is every part, each after a space. */
const anyNamePart: Operator<string> = (column, value, p) =>
  `${column} LIKE ${p.add(`% ${normalizeName(value).replace(/[\\%_]/g, '\\$&')}%`)} ESCAPE '\\'`;

/** Every part of the name, normalised, each after a space (FHIR `name=` matches any). */
function nameParts(doc: StoredPractitioner): string {
  const { family, given = [], prefix = [], suffix = [] } = doc.name;
  return [...prefix, ...given, family, ...suffix].map((part) => ` ${normalizeName(part)}`).join('');
}

/** The NPI an identifier search names: under the NPI system, or any system left out. */
function npiOf(token: IdentifierCriterion): string | null {
  return token.system === undefined || token.system === NPI_SYSTEM ? token.value : null;
}

const PREFIX = 'prac';

export const PRACTITIONER = resource<StoredPractitioner, PractitionerCriteria>()({
  name: 'practitioner',
  table: 'practitioners',
  prefix: PREFIX,
  readScope: 'practitioners:read',
  columns: [
    { name: 'active', value: (p) => p.active },
    { name: 'family_norm', value: (p) => normalizeName(p.name.family) },
    { name: 'name_norm', value: nameParts },
    { name: 'npi', value: (p) => p.npi },
  ],
  criteria: {
    id: { column: 'id', op: equals },
    active: { column: 'active', op: equals },
    familyName: { column: 'family_norm', op: namePrefix },
    anyName: { column: 'name_norm', op: anyNamePart },
    npi: { column: 'npi', op: equals },
  },
  listQuery: { active: 'active' },
  audited: ['id'],
  events: ['practitioner.created', 'practitioner.updated'],
  // FHIR Practitioner: search by `_id`, name (any part), family and the NPI.
  fhir: [
    {
      type: 'Practitioner',
      search: {
        _id: idSearch(PREFIX),
        name: { criterion: 'anyName', type: 'string', parse: (text: string) => text },
        family: { criterion: 'familyName', type: 'string', parse: (text: string) => text },
        identifier: {
          criterion: 'npi',
          type: 'token',
          parse: (text: string) => npiOf(identifierToken(text)),
        },
      },
    },
  ],
});
