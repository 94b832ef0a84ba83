/**
 * FHIR R4 Patient (docs/design.md#fhir-r4): read, search, create. The same stored patients,
 * keys, modes and audit trail as the Patients tag; the mapping is server/fhir/mapping/patient.ts.
 * Searches audit the ids of the patients returned, never the values searched for.
 */
import { type EventObject, emitEvent } from '../domain/events.js';
import { buildPatient, checkPatientFields, type PatientCreateParams } from '../domain/patients.js';
import { nowSeconds } from '../domain/serialize.js';
import { isApiError } from '../errors.js';
import { searchsetText } from '../fhir/bundle.js';
import { conditionalRead, versionHeaders } from '../fhir/conditional-read.js';
import { checkPatientCreateFields } from '../fhir/create-params.js';
import { pageParams } from '../fhir/cursor.js';
import { FhirError, resourceNotFound } from '../fhir/errors.js';
import { fromFhirId } from '../fhir/ids.js';
import { countOnly } from '../fhir/lenient-search.js';
import { patientFromFhir, patientToFhir, type StoredPatient } from '../fhir/mapping/patient.js';
import { RenderCache } from '../fhir/render-cache.js';
import { requestInfo } from '../fhir/request-info.js';
import { identifierToken } from '../fhir/search/token.js';
import { newId } from '../ids.js';
import { ConflictError } from '../repos/errors.js';
import { searchPatientsForFhir } from '../repos/fhir-patient-search.js';
import { getPatient, insertPatient } from '../repos/patients.js';
import type { AppHandler } from './types.js';

/** Rendered patients of recent searches (server/fhir/render-cache.ts says why). */
const rendered = new RenderCache(2000);

/** GET /fhir/R4/Patient */
export const searchFhirPatients: AppHandler<'searchFhirPatients'> = async (request, ctx) => {
  const q = request.query;
  const summary = countOnly(q);
  const id = q._id === undefined ? undefined : fromFhirId('Patient', q._id);
  const page =
    q._id !== undefined && id === undefined
      ? { data: [], hasMore: false, total: 0 }
      : await searchPatientsForFhir(
          ctx.db,
          {
            livemode: ctx.livemode,
            ...pageParams('Patient', q),
            ...(id === undefined ? {} : { id }),
            ...(q.family === undefined ? {} : { familyName: q.family }),
            ...(q.given === undefined ? {} : { givenName: q.given }),
            ...(q.birthdate === undefined ? {} : { birthDate: q.birthdate.replace(/^eq/, '') }),
            ...(q.identifier === undefined ? {} : { identifier: identifierToken(q.identifier) }),
            ...(q.gender === undefined ? {} : { gender: q.gender }),
            ...(q.email === undefined ? {} : { email: q.email }),
            ...(q.phone === undefined ? {} : { phone: q.phone }),
          },
          summary,
        );
  ctx.audit(page.data.map((p) => p.id));
  return { status: 200, body: searchsetText('Patient', q, page, patientToFhir, rendered, summary) };
};

/** GET /fhir/R4/Patient/{id} */
export const readFhirPatient: AppHandler<'readFhirPatient'> = async (request, ctx) => {
  const id = fromFhirId('Patient', request.params.id);
  const stored =
    id === undefined ? undefined : await getPatient<StoredPatient>(ctx.db, id, ctx.livemode);
  if (id === undefined || stored === undefined) {
    ctx.audit(id === undefined ? [] : [id], 'not_found');
    throw resourceNotFound('Patient');
  }
  ctx.audit([id]);
  return conditionalRead(patientToFhir(stored), request.headers['if-none-match']);
};

/** `/v1`'s 400s for patient fields are a FHIR 422: the resource was read, a rule refused it. */
function asUnprocessable(error: unknown): unknown {
  if (!isApiError(error) || error.statusCode !== 400) return error;
  return new FhirError(422, 'business-rule', error.message, { cause: error });
}

/** POST /fhir/R4/Patient */
export const createFhirPatient: AppHandler<'createFhirPatient'> = async (request, ctx) => {
  const fields = patientFromFhir(request.body) as PatientCreateParams;
  checkPatientCreateFields(fields);
  try {
    checkPatientFields(fields, ctx.now());
  } catch (error) {
    throw asUnprocessable(error);
  }
  return ctx.write(async (tx) => {
    const patient = buildPatient(fields, {
      id: newId('pat', ctx.now()),
      livemode: ctx.livemode,
      nowSeconds: nowSeconds(ctx),
    });
    try {
      await insertPatient(tx, patient);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      throw new FhirError(409, 'duplicate', error.message, { expression: 'Patient.identifier' });
    }
    await emitEvent(tx, ctx, { type: 'patient.created', object: patient as EventObject });
    ctx.audit([patient.id]);
    const resource = patientToFhir(patient as unknown as StoredPatient);
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

/**
 * POST /fhir/R4/Patient/_search: the GET search. The FHIR scope has read the form body into the
 * query (server/fhir/plugin.ts), so both answer the same Bundle for the same parameters.
 */
export const searchFhirPatientsByPost: AppHandler<'searchFhirPatientsByPost'> = (request, ctx) =>
  searchFhirPatients({ ...request, body: undefined }, ctx);
