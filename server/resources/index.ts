/**
 * Every resource (docs/design.md#resources), and what is derived from the list: the unions of
 * their tables and id prefixes, and their FHIR faces. A new resource is one module and one
 * entry here; nothing else restates its table, prefix, FHIR type or scope.
 */
import { APPOINTMENT } from './appointment.js';
import { CLAIM } from './claim.js';
import { PATIENT } from './patient.js';
import { PRACTITIONER } from './practitioner.js';
import { WEBHOOK } from './webhook.js';

export const RESOURCES = [PATIENT, PRACTITIONER, APPOINTMENT, CLAIM, WEBHOOK] as const;

type AnyResource = (typeof RESOURCES)[number];

/** The id prefix of each resource (`pat`, `appt`, …). */
export type ResourcePrefix = AnyResource['prefix'];

/** The tables that store one document per row as `data` JSON, keyed by `id` and `livemode`. */
export type DocTable = AnyResource['table'];

/** The FHIR resource types we serve, each a face of one resource. */
export type FhirResourceType = NonNullable<AnyResource['fhir']>[number]['type'];
