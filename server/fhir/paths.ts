/** Where the FHIR face lives and the media type it answers in. */

/** The FHIR base path. */
export const FHIR_BASE = '/fhir/R4';
/** FHIR's JSON media type, what every FHIR reply is sent as. */
export const FHIR_JSON = 'application/fhir+json; charset=utf-8';
