/**
 * Every FHIR resource type we serve, joined from its resource module (server/resources/: the
 * table, the search parameters, the status map) and its field table (server/fhir/mapping/).
 * The generic FHIR handlers (server/handlers/fhir-resources.ts) read this, so a type's read,
 * search and rendering are one code path for all (docs/design.md#resources).
 */
import type { components } from '../../generated/types.js';
import { APPOINTMENT, APPOINTMENT_FHIR, type StoredAppointment } from '../resources/appointment.js';
import { CLAIM, CLAIM_FHIR, CLAIM_RESPONSE_FHIR, type StoredClaim } from '../resources/claim.js';
import { PATIENT, PATIENT_FHIR, type StoredPatient } from '../resources/patient.js';
import type { FhirFace, Resource, StoredDoc } from '../resources/resource.js';
import type { FhirResourceType } from './ids.js';
import { APPOINTMENT_FIELDS } from './mapping/appointment.js';
import { CLAIM_FIELDS } from './mapping/claim.js';
import { CLAIM_RESPONSE_FIELDS } from './mapping/claim-response.js';
import {
  type FieldMapping,
  type FromFhir,
  fromFhirResource,
  toFhirResource,
} from './mapping/fields.js';
import { PATIENT_FIELDS } from './mapping/patient.js';

type Schemas = components['schemas'];

/** The FHIR resource of each type, and the stored record behind it. */
export interface FhirTypes {
  Patient: { resource: Schemas['FhirPatient']; stored: StoredPatient };
  Appointment: { resource: Schemas['FhirAppointment']; stored: StoredAppointment };
  Claim: { resource: Schemas['FhirClaim']; stored: StoredClaim };
  ClaimResponse: { resource: Schemas['FhirClaimResponse']; stored: StoredClaim };
}

/** One FHIR type: the resource stored behind it, its face and its field table. */
export interface FhirType<T extends StoredDoc, R> {
  readonly resource: Resource<T>;
  readonly face: FhirFace<T, string>;
  // biome-ignore lint/suspicious/noExplicitAny: the elements of R but `resourceType`, `id`, `meta`
  readonly fields: readonly FieldMapping<T, any>[];
  /** Marks the FHIR resource type this entry renders. */
  readonly _resource?: R;
}

type Registry = {
  readonly [K in FhirResourceType]: FhirType<FhirTypes[K]['stored'], FhirTypes[K]['resource']>;
};

export const FHIR_TYPES: Registry = {
  Patient: { resource: PATIENT, face: PATIENT_FHIR, fields: PATIENT_FIELDS },
  Appointment: { resource: APPOINTMENT, face: APPOINTMENT_FHIR, fields: APPOINTMENT_FIELDS },
  Claim: { resource: CLAIM, face: CLAIM_FHIR, fields: CLAIM_FIELDS },
  ClaimResponse: { resource: CLAIM, face: CLAIM_RESPONSE_FHIR, fields: CLAIM_RESPONSE_FIELDS },
};

/** The FHIR resource of `type` for a stored record. */
export function toFhir<K extends FhirResourceType>(
  type: K,
  stored: FhirTypes[K]['stored'],
): FhirTypes[K]['resource'] {
  return toFhirResource(type, FHIR_TYPES[type].fields, stored);
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
