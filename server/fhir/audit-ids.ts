/**
 * What a FHIR read or search puts in the audit trail: the ids of the objects returned and of
 * their patients, each once (as `/v1` lists do), never the search values.
 */

/** The audit ids of some appointments or claims: theirs and their patients'. */
export function auditIds(objects: readonly { id: string; patient: string }[]): string[] {
  return [...new Set(objects.flatMap((o) => [o.id, o.patient]))];
}
