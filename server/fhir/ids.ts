/**
 * FHIR ids for our ids (docs/design.md#fhir-r4). A FHIR id is `[A-Za-z0-9\-.]{1,64}`; ours are
 * `prefix_ULID` (`pat_01JD7X5K8M9N2P3Q4R5S6T7V8W`), and `_` is not allowed. The FHIR id is ours
 * with the `_` replaced by `-`: the prefix is lower-case letters and a ULID (Crockford base32)
 * has no `-`, so the first `-` marks the prefix and the mapping reverses exactly. Clients see
 * the same ULID in both APIs, so an id is easy to carry from one to the other by hand too.
 */
import { type FhirResourceType, RESOURCES } from '../resources/index.js';
import { ourIdOf, ourIdOfReference } from './id-text.js';

export type { FhirResourceType };

/** The prefix of the ids behind each FHIR type we serve, from the resource modules. */
export const ID_PREFIXES = Object.fromEntries(
  RESOURCES.flatMap((resource) => {
    const faces: readonly { readonly type: string }[] = resource.fhir ?? [];
    return faces.map((face) => [face.type, resource.prefix]);
  }),
) as Readonly<Record<FhirResourceType, string>>;

/**
 * The FHIR id of one of our ids.
 *
 * @example toFhirId('pat_01JD7X5K8M9N2P3Q4R5S6T7V8W') // 'pat-01JD7X5K8M9N2P3Q4R5S6T7V8W'
 */
export function toFhirId(id: string): string {
  return id.replace('_', '-');
}

/**
 * Our id behind a FHIR id of `type`, or `undefined` when the text is not one we could have
 * made for that type (then the resource does not exist: 404, never 400, as for any unknown id).
 */
export function fromFhirId(type: FhirResourceType, fhirId: string): string | undefined {
  return ourIdOf(ID_PREFIXES[type], fhirId);
}

/**
 * Our id from a reference to `type` written `Type/{id}` or as the bare id (search parameters
 * such as `patient=` accept both), or `undefined`.
 */
export function fromReference(type: FhirResourceType, reference: string): string | undefined {
  return ourIdOfReference(type, ID_PREFIXES[type], reference);
}
