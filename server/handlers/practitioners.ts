/**
 * Practitioners (the Practitioners tag; docs/design.md#resources): create, retrieve, partial
 * update and list, stored through the practitioner resource (server/resources/practitioner.ts),
 * and the FHIR R4 Practitioner read and search, served by the generic FHIR handlers. A
 * practitioner is not PHI, but every read and write is audited as for any resource.
 */
import type { components, Readable } from '../../generated/types.js';
import { isValidNpi } from '../domain/claim-rules.js';
import { emitEvent, previousAttributes } from '../domain/events.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { fullName } from '../domain/patients.js';
import { retrieveRecord } from '../domain/records.js';
import { checkMetadata, mergeMetadata, resourceMissing } from '../domain/serialize.js';
import { ApiError } from '../errors.js';
import {
  insertRecord,
  listQueryCriteria,
  listRecords,
  modifyRecord,
  newDocInfo,
} from '../repos/records.js';
import { PRACTITIONER, type StoredPractitioner } from '../resources/practitioner.js';
import type { NewObjectInfo } from '../resources/resource.js';
import { interactions } from './fhir-interactions.js';
import type { AppHandler } from './types.js';

type CreateParams = components['schemas']['PractitionerCreateParams'];
type UpdateParams = components['schemas']['PractitionerUpdateParams'];
type Contact = Readable<components['schemas']['PractitionerContact']>;

/** `400 parameter_invalid` unless the NPI's check digit is right (as a claim's billing NPI). */
function checkNpi(npi: string | null | undefined): void {
  if (npi === null || npi === undefined || isValidNpi(npi)) return;
  throw new ApiError('parameter_invalid', {
    param: 'npi',
    message: 'Invalid value for npi: not a valid NPI (10 digits with a Luhn check digit).',
  });
}

/** A contact with both fields present (`null` when unset). */
function fullContact(contact: Contact | undefined): StoredPractitioner['contact'] {
  return { email: contact?.email ?? null, phone: contact?.phone ?? null };
}

/** A new practitioner from `createPractitioner`'s body: every field present. */
function buildPractitioner(params: CreateParams, info: NewObjectInfo): StoredPractitioner {
  checkNpi(params.npi);
  return {
    id: info.id,
    object: 'practitioner',
    livemode: info.livemode,
    created: info.nowSeconds,
    updated: info.nowSeconds,
    name: fullName(params.name),
    npi: params.npi ?? null,
    specialty: params.specialty ?? null,
    contact: fullContact(params.contact),
    active: params.active ?? true,
    metadata: { ...checkMetadata(params.metadata) },
  };
}

/** The stored practitioner with `update` applied, or the same object when nothing changes. */
function applyUpdate(
  stored: StoredPractitioner,
  update: UpdateParams,
  nowMs: number,
): StoredPractitioner {
  checkNpi(update.npi);
  const next: StoredPractitioner = { ...stored };
  if (update.name !== undefined) next.name = fullName(update.name);
  if (update.npi !== undefined) next.npi = update.npi;
  if (update.specialty !== undefined) next.specialty = update.specialty;
  if (update.contact !== undefined) next.contact = fullContact(update.contact);
  if (update.active !== undefined) next.active = update.active;
  next.metadata = mergeMetadata(stored.metadata, update.metadata);
  if (JSON.stringify(next) === JSON.stringify(stored)) return stored;
  next.updated = Math.max(Math.floor(nowMs / 1000), stored.updated);
  return next;
}

/** GET /v1/practitioners */
export const listPractitioners: AppHandler<'listPractitioners'> = async (request, ctx) => {
  const page = await listRecords(PRACTITIONER, ctx.db, {
    ...listParams(request.query),
    livemode: ctx.livemode,
    ...listQueryCriteria(PRACTITIONER, request.query),
  });
  ctx.audit(page.data.map((p) => p.id));
  return { status: 200, body: listEnvelope('/v1/practitioners', page) };
};

/** POST /v1/practitioners */
export const createPractitioner: AppHandler<'createPractitioner'> = async (request, ctx) => {
  const practitioner = buildPractitioner(request.body, newDocInfo(PRACTITIONER, ctx));
  return ctx.write(async (tx) => {
    await insertRecord(PRACTITIONER, tx, practitioner);
    await emitEvent(tx, ctx, { type: 'practitioner.created', object: practitioner });
    ctx.audit([practitioner.id]);
    return { status: 200, body: practitioner };
  });
};

/** GET /v1/practitioners/{id} */
export const retrievePractitioner: AppHandler<'retrievePractitioner'> = async (request, ctx) => {
  const practitioner = await retrieveRecord(PRACTITIONER, ctx, request.params.id);
  ctx.audit([practitioner.id]);
  return { status: 200, body: practitioner };
};

/** POST /v1/practitioners/{id} */
export const updatePractitioner: AppHandler<'updatePractitioner'> = async (request, ctx) => {
  const { id } = request.params;
  return ctx.write(async (tx) => {
    const done = await modifyRecord(PRACTITIONER, tx, id, ctx.livemode, (stored) =>
      applyUpdate(stored, request.body, ctx.now()),
    );
    if (done === undefined) throw resourceMissing('practitioner');
    const { current, change: next } = done;
    if (next !== undefined) {
      await emitEvent(tx, ctx, {
        type: 'practitioner.updated',
        object: next,
        previousAttributes: previousAttributes(current, next),
      });
    }
    ctx.audit([id]);
    return { status: 200, body: next ?? current };
  });
};

export const [searchFhirPractitioners, searchFhirPractitionersByPost, readFhirPractitioner] =
  interactions('Practitioner');
