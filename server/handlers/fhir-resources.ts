/**
 * The FHIR R4 read and search handlers of the types whose `/v1` handlers are elsewhere
 * (server/handlers/fhir-interactions.ts makes them; docs/design.md#resources).
 */
import { interactions } from './fhir-interactions.js';

export const [searchFhirPatients, searchFhirPatientsByPost, readFhirPatient] =
  interactions('Patient');
export const [searchFhirAppointments, searchFhirAppointmentsByPost, readFhirAppointment] =
  interactions('Appointment');
export const [searchFhirClaims, searchFhirClaimsByPost, readFhirClaim] = interactions('Claim');
export const [searchFhirClaimResponses, searchFhirClaimResponsesByPost, readFhirClaimResponse] =
  interactions('ClaimResponse');
