/**
 * The text of FHIR ids, by prefix (docs/design.md#fhir-r4): below the resource modules, which
 * name their own prefix and FHIR type, so they can parse `_id=` and references without the
 * type registry (server/fhir/ids.ts) that is derived from them.
 */
import { ULID_PATTERN } from '../ulid.js';

/** Our id behind a FHIR id made with `prefix`, or `undefined` when it is not one. */
export function ourIdOf(prefix: string, fhirId: string): string | undefined {
  if (!fhirId.startsWith(`${prefix}-`)) return undefined;
  const body = fhirId.slice(prefix.length + 1);
  return ULID_PATTERN.test(body) ? `${prefix}_${body}` : undefined;
}

/** Our id from a reference to `type` (`Type/{id}` or the bare id) made with `prefix`. */
export function ourIdOfReference(
  type: string,
  prefix: string,
  reference: string,
): string | undefined {
  const bare = reference.startsWith(`${type}/`) ? reference.slice(type.length + 1) : reference;
  return ourIdOf(prefix, bare);
}
