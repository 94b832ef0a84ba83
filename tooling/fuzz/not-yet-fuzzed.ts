/**
 * Operations the contract fuzzer leaves out of its runs unless named in `FUZZ_ONLY`, each with
 * why. The FHIR R4 searches, reads and create (docs/design.md#fhir-r4) need rules the fuzzer
 * does not have yet before "valid input is never rejected" can hold for them: FHIR ids
 * (`pat-…`) instead of ours in `patient`/`request`/`{id}`, `_cursor` values that come from
 * a `next` link, date parameters naming days that exist, and Patient bodies our records can
 * hold (one name with a family, identifier types coded in v2-0203, one email and one phone).
 * A first run (FUZZ_ONLY, 3-40 cases) also stalled in `searchFhirClaimResponses`. Until those
 * land, the FHIR face is checked by test/fhir (service, validation, fhir-kit-client, auth
 * matrix); `readFhirCapabilities` is fuzzed like every public probe.
 */
export const NOT_YET_FUZZED: ReadonlySet<string> = new Set([
  'searchFhirPatients',
  'createFhirPatient',
  'readFhirPatient',
  'searchFhirAppointments',
  'readFhirAppointment',
  'searchFhirClaims',
  'readFhirClaim',
  'searchFhirClaimResponses',
  'readFhirClaimResponse',
]);
