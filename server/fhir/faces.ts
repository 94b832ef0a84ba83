/**
 * Every FHIR resource type we serve, joined from its resource module's face (server/resources/:
 * the table, the search parameters, the status map; the list of types is derived from them) and
 * its field table (server/fhir/mapping/). The generic FHIR handlers
 * (server/handlers/fhir-resources.ts) read this, so a type's read, search and rendering are one
 * code path for all (docs/design.md#resources).
 */
import type { components } from '../../generated/types.js';
import type { StoredResource } from '../repos/records.js';
import type { StoredAppointment } from '../resources/appointment.js';
import type { StoredClaim } from '../resources/claim.js';
import { type FhirResourceType, RESOURCES } from '../resources/index.js';
import type { StoredPatient } from '../resources/patient.js';
import type { StoredPractitioner } from '../resources/practitioner.js';
import type { FhirFace, StoredDoc } from '../resources/resource.js';
import { APPOINTMENT_FIELDS } from './mapping/appointment.js';
import { CLAIM_FIELDS } from './mapping/claim.js';
import { CLAIM_RESPONSE_FIELDS } from './mapping/claim-response.js';
import type { Versioned } from './mapping/common.js';
import {
  type FieldMapping,
  type FromFhir,
  fromFhirResource,
  toFhirResource,
} from './mapping/fields.js';
import { PATIENT_FIELDS } from './mapping/patient.js';
import { PRACTITIONER_FIELDS } from './mapping/practitioner.js';

type Schemas = components['schemas'];

/** The FHIR resource of each type, and the stored record behind it. */
export interface FhirTypes {
  Patient: { resource: Schemas['FhirPatient']; stored: StoredPatient };
  Practitioner: { resource: Schemas['FhirPractitioner']; stored: StoredPractitioner };
  Appointment: { resource: Schemas['FhirAppointment']; stored: StoredAppointment };
  Claim: { resource: Schemas['FhirClaim']; stored: StoredClaim };
  ClaimResponse: { resource: Schemas['FhirClaimResponse']; stored: StoredClaim };
}

// The types above are exactly the faces of the resource modules: one more or one fewer on
// either side fails the type check here.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : never;
const _everyFace: SameKeys<FhirTypes, Record<FhirResourceType, unknown>> = true;

/** A field table: the elements of R but `resourceType`, `id` and `meta`. */
type Fields<K extends FhirResourceType> = readonly FieldMapping<
  FhirTypes[K]['stored'],
  Omit<FhirTypes[K]['resource'], 'resourceType' | 'id' | 'meta'>
>[];

const FIELDS: { readonly [K in FhirResourceType]: Fields<K> } = {
  Patient: PATIENT_FIELDS,
  Practitioner: PRACTITIONER_FIELDS,
  Appointment: APPOINTMENT_FIELDS,
  Claim: CLAIM_FIELDS,
  ClaimResponse: CLAIM_RESPONSE_FIELDS,
};

/** Criteria as the generic FHIR handlers set them: each by its face's own parser. */
export type FaceCriteria = Record<string, unknown>;

/** One FHIR type: the resource stored behind it, its face and its field table. */
export interface FhirType<K extends FhirResourceType> {
  readonly resource: StoredResource<FhirTypes[K]['stored'], FaceCriteria>;
  readonly face: FhirFace<FhirTypes[K]['stored'], FaceCriteria>;
  readonly fields: Fields<K>;
}

type Registry = { readonly [K in FhirResourceType]: FhirType<K> };

/**
 * The registry, from every resource's faces. A face's criteria are typed by its own module;
 * here they are seen by name only (the handlers pass on each parser's value unread), which is
 * the one widening of the resource types in the FHIR code.
 */
export const FHIR_TYPES = Object.fromEntries(
  RESOURCES.flatMap((resource) => {
    const faces = (resource.fhir ?? []) as readonly FhirFace<StoredDoc, FaceCriteria>[];
    return faces.map((face) => [
      face.type,
      { resource, face, fields: FIELDS[face.type as FhirResourceType] },
    ]);
  }),
) as unknown as Registry;

/** The FHIR resource of `type` for a stored record. */
export function toFhir<K extends FhirResourceType>(
  type: K,
  stored: FhirTypes[K]['stored'],
): FhirTypes[K]['resource'] {
  return toFhirResource<FhirTypes[K]['stored'] & Versioned, FhirTypes[K]['resource']>(
    type,
    FHIR_TYPES[type].fields,
    stored,
  );
}

/** The stored fields a FHIR resource of `type` carries (`id` and `meta` ignored). */
export function fromFhir<K extends FhirResourceType>(
  type: K,
  resource: Omit<Partial<FhirTypes[K]['resource']>, 'id' | 'meta'> & {
    id?: unknown;
    meta?: unknown;
  },
): FromFhir<FhirTypes[K]['stored']> {
  return fromFhirResource(FHIR_TYPES[type].fields, resource as Partial<FhirTypes[K]['resource']>);
}
