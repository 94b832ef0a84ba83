/**
 * Claims (docs/design.md#claims, the Claims tag): submit (rules checked, totals computed by the
 * server), list and retrieve. After submission only the clearinghouse moves a claim; in test
 * mode the simulator finds it by its status and `updated`. Every handler records the claim
 * and patient ids it touched in the audit trail.
 */

import { scopeGranted } from '../../contract/scopes.js';
import { buildClaim } from '../domain/claim-build.js';
import { emitEvent } from '../domain/events.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { auditIdsOf, requireRecord, retrieveRecord } from '../domain/records.js';
import { resourceMissing } from '../domain/serialize.js';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from '../http/auth.js';
import {
  getRecord,
  insertRecord,
  listQueryCriteria,
  listRecords,
  newDocInfo,
} from '../repos/records.js';
import { APPOINTMENT } from '../resources/appointment.js';
import { CLAIM } from '../resources/claim.js';
import { PATIENT } from '../resources/patient.js';
import type { AppHandler } from './types.js';

/** Whether the key may read appointments (secret keys may read everything). */
function canReadAppointments(key: Pick<AuthenticatedKey, 'kind' | 'scopes'>): boolean {
  return key.kind === 'secret' || scopeGranted(key.scopes, 'appointments:read');
}

/** GET /v1/claims */
export const listClaims: AppHandler<'listClaims'> = async (request, ctx) => {
  const { patient } = request.query;
  const page = await listRecords(CLAIM, ctx.db, {
    ...listParams(request.query),
    livemode: ctx.livemode,
    ...listQueryCriteria(CLAIM, request.query),
  });
  const ids = auditIdsOf(CLAIM, page.data);
  ctx.audit(patient === undefined ? ids : [...new Set([patient, ...ids])]);
  return { status: 200, body: listEnvelope('/v1/claims', page) };
};

/** POST /v1/claims */
export const submitClaim: AppHandler<'submitClaim'> = async (request, ctx) => {
  const body = request.body;
  const claim = buildClaim(body, newDocInfo(CLAIM, ctx));
  return ctx.write(async (tx) => {
    await requireRecord(PATIENT, tx, ctx.livemode, body.patient, 'patient');
    if (body.appointment !== undefined) {
      const appointment = await getRecord(APPOINTMENT, tx, body.appointment, ctx.livemode);
      if (appointment === undefined) throw resourceMissing('appointment', 'appointment');
      if (appointment.patient !== body.patient && !canReadAppointments(ctx.key)) {
        // A 400 here would tell a key that may not read appointments that the id exists;
        // to it, another patient's appointment is as missing as an unknown one.
        throw resourceMissing('appointment', 'appointment');
      }
      if (appointment.patient !== body.patient) {
        throw new ApiError('parameter_invalid', {
          param: 'appointment',
          message: 'Invalid value for appointment: it belongs to a different patient.',
        });
      }
    }
    await insertRecord(CLAIM, tx, claim);
    await emitEvent(tx, ctx, { type: 'claim.submitted', object: claim });
    ctx.audit(
      claim.appointment === null
        ? [claim.id, claim.patient]
        : [claim.id, claim.patient, claim.appointment],
    );
    return { status: 200, body: claim };
  });
};

/** GET /v1/claims/{id} */
export const retrieveClaim: AppHandler<'retrieveClaim'> = async (request, ctx) => {
  const { id } = request.params;
  const claim = await retrieveRecord(CLAIM, ctx, id);
  ctx.audit(auditIdsOf(CLAIM, [claim]));
  return { status: 200, body: claim };
};
