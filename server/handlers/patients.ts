/**
 * Patients (docs/design.md#lists, the Patients tag): list on non-PHI filters, create from fields or
 * an intake token, retrieve, partial update, and the PHI search that keeps names out of URLs. Every
 * handler records the patient ids it touched in the audit trail.
 */

import type { Db } from '../db/types.js';
import { emitEvent, previousAttributes } from '../domain/events.js';
import { listEnvelope, listEnvelopeText, listParams } from '../domain/list.js';
import {
  applyPatientUpdate,
  buildPatient,
  checkPatientFields,
  type Patient,
  type PatientCreateParams,
} from '../domain/patients.js';
import { retrieveRecord } from '../domain/records.js';
import { nowSeconds, resourceMissing } from '../domain/serialize.js';
import { ApiError } from '../errors.js';
import {
  insertRecord,
  JSON_TEXT,
  listQueryCriteria,
  listRecords,
  modifyRecord,
  newDocInfo,
} from '../repos/records.js';
import { consumeToken, getToken } from '../repos/tokens.js';
import { PATIENT } from '../resources/patient.js';
import { ConflictError } from '../sql/errors.js';
import type { AppHandler, HandlerContext } from './types.js';

/** Repository conflicts (duplicate MRN) become the spec's 409; the message names no value. */
async function storing<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new ApiError('resource_already_exists', {
        param: error.param ?? null,
        message: error.message,
      });
    }
    throw error;
  }
}

/** The patient fields carried by an intake token, consuming it (inside the write). */
async function fieldsFromToken(
  tx: Db,
  ctx: HandlerContext,
  tokenId: string,
): Promise<PatientCreateParams> {
  const used = await consumeToken<PatientCreateParams>(tx, {
    id: tokenId,
    livemode: ctx.livemode,
    nowSeconds: nowSeconds(ctx),
  });
  if (used.ok && used.token.type === 'patient_intake') return used.token.data;
  if (!used.ok && used.reason === 'missing' && (await getToken(tx, tokenId, !ctx.livemode))) {
    throw new ApiError('livemode_mismatch', {
      param: 'token',
      message: 'This token was created in the other mode (test or live) than the API key.',
    });
  }
  throw new ApiError('token_invalid', { param: 'token' });
}

/** GET /v1/patients */
export const listPatients: AppHandler<'listPatients'> = async (request, ctx) => {
  // Stored patients are already their API JSON: the page is spliced, not parsed and re-sent.
  const page = await listRecords(
    PATIENT,
    ctx.db,
    {
      ...listParams(request.query),
      livemode: ctx.livemode,
      ...listQueryCriteria(PATIENT, request.query),
    },
    JSON_TEXT,
  );
  ctx.audit(page.data.map((p) => p.id));
  return { status: 200, body: listEnvelopeText<Patient, '/v1/patients'>('/v1/patients', page) };
};

/** POST /v1/patients */
export const createPatient: AppHandler<'createPatient'> = async (request, ctx) => {
  const body = request.body;
  return ctx.write(async (tx) => {
    let fields: PatientCreateParams;
    if ('token' in body) {
      // Validation keeps patient fields out of a `{token}` body; only `metadata` may join it.
      const carried = await fieldsFromToken(tx, ctx, body.token);
      fields =
        body.metadata === undefined
          ? carried
          : { ...carried, metadata: { ...carried.metadata, ...body.metadata } };
    } else {
      fields = body;
    }
    checkPatientFields(fields, ctx.now());
    const patient = buildPatient(fields, newDocInfo(PATIENT, ctx));
    await storing(insertRecord(PATIENT, tx, patient));
    await emitEvent(tx, ctx, { type: 'patient.created', object: patient });
    ctx.audit('token' in body ? [patient.id, body.token] : [patient.id]);
    return { status: 200, body: patient };
  });
};

/** GET /v1/patients/{id} */
export const retrievePatient: AppHandler<'retrievePatient'> = async (request, ctx) => {
  const { id } = request.params;
  if (ctx.key.kind === 'ephemeral' && ctx.key.patientId !== id) {
    ctx.audit([id], 'denied');
    ctx.assertPatient(id);
  }
  const patient = await retrieveRecord(PATIENT, ctx, id);
  ctx.audit([id]);
  return { status: 200, body: patient };
};

/** POST /v1/patients/{id} */
export const updatePatient: AppHandler<'updatePatient'> = async (request, ctx) => {
  const { id } = request.params;
  return ctx.write(async (tx) => {
    // Read, merged and written under the row's lock: a concurrent update waits for this one.
    const done = await storing(
      modifyRecord(PATIENT, tx, id, ctx.livemode, (stored) =>
        applyPatientUpdate(stored, request.body, ctx.now()),
      ),
    );
    if (done === undefined) throw resourceMissing('patient');
    const { current, change: next } = done;
    if (next !== undefined) {
      await emitEvent(tx, ctx, {
        type: 'patient.updated',
        object: next,
        previousAttributes: previousAttributes(current, next),
      });
    }
    ctx.audit([id]);
    return { status: 200, body: next ?? current };
  });
};

/** POST /v1/patients/search */
export const searchPatients: AppHandler<'searchPatients'> = async (request, ctx) => {
  const body = request.body;
  // A write transaction although nothing changes: it is what stores the page for an
  // Idempotency-Key replay, and the audit row of the PHI read joins it.
  return ctx.write(async (tx) => {
    const page = await listRecords(PATIENT, tx, {
      livemode: ctx.livemode,
      limit: body.limit,
      startingAfter: body.starting_after,
      familyName: body.family_name,
      givenName: body.given_name,
      birthDate: body.birth_date,
      identifier: body.identifier,
      email: body.email,
      phone: body.phone,
    });
    ctx.audit(page.data.map((p) => p.id));
    return { status: 200, body: listEnvelope('/v1/patients/search', page) };
  });
};
