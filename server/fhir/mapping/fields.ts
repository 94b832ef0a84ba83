/**
 * Field tables (docs/design.md#resources): a resource's stored fields and its FHIR elements,
 * one entry per field, read in both directions, and the envelope (`resourceType`, `id`,
 * `meta`) the server puts around them. Each resource's table is its file here (patient.ts,
 * appointment.ts, claim.ts, claim-response.ts); the data types they use are common.ts.
 */
import { type FhirResourceType, toFhirId } from '../ids.js';
import {
  type FhirMeta,
  type FhirReference,
  idFromReference,
  instant,
  metaOf,
  referenceTo,
  secondsOf,
  type Versioned,
} from './common.js';

/**
 * Stored fields as a FHIR resource carries them: any of them, and of an object field the parts
 * FHIR has an element for (a Claim's provider has an NPI but no tax id).
 */
export type FromFhir<Stored> = {
  [K in keyof Stored]?: Stored[K] extends readonly unknown[]
    ? Stored[K]
    : Stored[K] extends object
      ? Partial<Stored[K]>
      : Stored[K];
};

/**
 * One field of a resource in both directions. `toFhir` reads the stored record and returns the
 * FHIR elements it fills (none when the field is unset); `fromFhir` reads those elements and
 * returns the stored fields, throwing `422` for what the stored record cannot hold, so nothing
 * sent is silently dropped.
 */
export interface FieldMapping<Stored, Resource> {
  /** The stored field(s), as named in `/v1`. */
  readonly field: string;
  readonly toFhir: (stored: Stored) => Partial<Resource>;
  readonly fromFhir: (resource: Partial<Resource>) => FromFhir<Stored>;
}

/** What the server sets on every resource; the field tables map the rest. */
interface Envelope {
  resourceType: FhirResourceType;
  id: string;
  meta: FhirMeta;
}

/**
 * The FHIR resource of a stored record: `resourceType`, `id` and `meta` from the record, then
 * every field's `toFhir`, merged in table order.
 */
export function toFhirResource<Stored extends Versioned & { id: string }, Resource>(
  type: FhirResourceType,
  fields: readonly FieldMapping<Stored, Omit<Resource, keyof Envelope>>[],
  stored: Stored,
): Resource {
  const out: Envelope = { resourceType: type, id: toFhirId(stored.id), meta: metaOf(stored) };
  for (const field of fields) Object.assign(out, field.toFhir(stored));
  return out as Resource;
}

/**
 * The stored fields a FHIR resource carries: every field's `fromFhir`, merged. `id` and `meta`
 * are the server's and are ignored, as FHIR create does.
 */
export function fromFhirResource<Stored, Resource>(
  fields: readonly FieldMapping<Stored, Omit<Resource, keyof Envelope>>[],
  resource: Partial<Resource>,
): FromFhir<Stored> {
  const out: FromFhir<Stored> = {};
  for (const field of fields) {
    Object.assign(out, field.fromFhir(resource as Partial<Omit<Resource, keyof Envelope>>));
  }
  return out;
}

/**
 * A stored time (unix seconds, `null` when unset) as an instant element, both ways. `read`
 * picks the time to show when it is not the field itself (a ClaimResponse made before
 * adjudication dates from the claim's last change).
 */
export function instantField<Stored, Resource>(
  field: keyof Stored & string,
  element: keyof Resource & string,
  expression: string,
  read: (stored: Stored) => unknown = (stored) => stored[field],
): FieldMapping<Stored, Resource> {
  return {
    field,
    toFhir: (stored) => {
      const seconds = read(stored);
      return (
        typeof seconds === 'number' ? { [element]: instant(seconds) } : {}
      ) as Partial<Resource>;
    },
    fromFhir: (resource) => {
      const text = resource[element];
      if (typeof text !== 'string') return {};
      return { [field]: secondsOf(text, expression) } as FromFhir<Stored>;
    },
  };
}

/**
 * A stored id field as a reference element to one of our resources, both ways (a claim's
 * `patient` is `Claim.patient`; its own id is `ClaimResponse.request`).
 */
export function referenceField<Stored, Resource>(
  field: keyof Stored & string,
  element: keyof Resource & string,
  type: FhirResourceType,
  expression: string,
): FieldMapping<Stored, Resource> {
  return {
    field,
    toFhir: (stored) =>
      ({ [element]: referenceTo(type, String(stored[field])) }) as Partial<Resource>,
    fromFhir: (resource) => {
      const reference = resource[element] as FhirReference | undefined;
      if (reference === undefined) return {};
      return { [field]: idFromReference(type, reference, expression) } as FromFhir<Stored>;
    },
  };
}
