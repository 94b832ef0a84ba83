/**
 * FHIR R4 Patient create (docs/design.md#fhir-r4): the same stored patients, keys, modes and
 * audit trail as the Patients tag; the mapping is server/fhir/mapping/patient.ts. Read and
 * search are every type's (server/handlers/fhir-resources.ts).
 */
import { emitEvent } from '../domain/events.js';
import { buildPatient, checkPatientFields, type PatientCreateParams } from '../domain/patients.js';
import { auditIdsOf } from '../domain/records.js';
import { isApiError } from '../errors.js';
import { versionHeaders } from '../fhir/conditional-read.js';
import { checkPatientCreateFields } from '../fhir/create-params.js';
import { FhirError } from '../fhir/errors.js';
import { fromFhir, toFhir } from '../fhir/faces.js';
import { requestInfo } from '../fhir/request-info.js';
import { insertRecord, newDocInfo } from '../repos/records.js';
import { PATIENT } from '../resources/patient.js';
import { ConflictError } from '../sql/errors.js';
import type { AppHandler } from './types.js';

/** `/v1`'s 400s for patient fields are a FHIR 422: the resource was read, a rule refused it. */
function asUnprocessable(error: unknown): unknown {
  if (!isApiError(error) || error.statusCode !== 400) return error;
  return new FhirError(422, 'business-rule', error.message, { cause: error });
}

/** POST /fhir/R4/Patient */
export const createFhirPatient: AppHandler<'createFhirPatient'> = async (request, ctx) => {
  const fields = fromFhir('Patient', request.body) as PatientCreateParams;
  checkPatientCreateFields(fields);
  try {
    checkPatientFields(fields, ctx.now());
  } catch (error) {
    throw asUnprocessable(error);
  }
  return ctx.write(async (tx) => {
    const patient = buildPatient(fields, newDocInfo(PATIENT, ctx));
    try {
      await insertRecord(PATIENT, tx, patient);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      throw new FhirError(409, 'duplicate', error.message, { expression: 'Patient.identifier' });
    }
    await emitEvent(tx, ctx, { type: 'patient.created', object: patient });
    ctx.audit(auditIdsOf(PATIENT, [patient]));
    const resource = toFhir('Patient', patient);
    return {
      status: 201,
      body: resource,
      headers: {
        Location: `${requestInfo(request.query).base}/Patient/${resource.id}`,
        ...versionHeaders(resource.meta),
      },
    };
  });
};
