/**
 * Claims (docs/design.md#claims, the Claims tag): submit (rules checked, totals computed by the
 * server), list and retrieve. After submission only the clearinghouse moves a claim; in test
 * mode the simulator finds it through the schedule set here. Every handler records the claim
 * and patient ids it touched in the audit trail.
 */

import { scopeGranted } from '../../contract/scopes.js';
import { buildClaim, type Claim } from '../domain/claim-build.js';
import { CLAIM_STEP_DELAY_MS } from '../domain/claim-status.js';
import { emitEvent } from '../domain/events.js';
import { listEnvelope, listParams } from '../domain/list.js';
import { nowSeconds, resourceMissing } from '../domain/serialize.js';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from '../http/auth.js';
import { newId } from '../ids.js';
import { getAppointment } from '../repos/appointments.js';
import * as repo from '../repos/claims.js';
import { getPatient } from '../repos/patients.js';
import type { AppHandler } from './types.js';

/** Whether the key may read appointments (secret keys may read everything). */
function canReadAppointments(key: Pick<AuthenticatedKey, 'kind' | 'scopes'>): boolean {
  return key.kind === 'secret' || scopeGranted(key.scopes, 'appointments:read');
}

/** GET /v1/claims */
export const listClaims: AppHandler<'listClaims'> = async (request, ctx) => {
  const { patient, status } = request.query;
  const page = await repo.listClaims<Claim>(ctx.db, {
    ...listParams(request.query),
    livemode: ctx.livemode,
    ...(patient === undefined ? {} : { patient }),
    ...(status === undefined ? {} : { status }),
  });
  const ids = new Set<string>();
  if (patient !== undefined) ids.add(patient);
  for (const claim of page.data) ids.add(claim.id).add(claim.patient);
  ctx.audit([...ids]);
  return { status: 200, body: listEnvelope('/v1/claims', page) };
};

/** POST /v1/claims */
export const submitClaim: AppHandler<'submitClaim'> = async (request, ctx) => {
  const body = request.body;
  const claim = buildClaim(body, {
    id: newId('clm', ctx.now()),
    livemode: ctx.livemode,
    nowSeconds: nowSeconds(ctx),
  });
  return ctx.write(async (tx) => {
    if ((await getPatient(tx, body.patient, ctx.livemode)) === undefined) {
      throw resourceMissing('patient', 'patient');
    }
    if (body.appointment !== undefined) {
      const appointment = await getAppointment(tx, body.appointment, ctx.livemode);
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
    // Test mode has a simulated clearinghouse that picks the claim up when this is due; live
    // claims wait for the real one, so nothing is scheduled.
    const nextActionAt = ctx.livemode ? null : ctx.now() + CLAIM_STEP_DELAY_MS;
    await repo.insertClaim(tx, claim, nextActionAt);
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
  const claim = await repo.getClaim<Claim>(ctx.db, id, ctx.livemode);
  if (claim === undefined) {
    ctx.audit([id], 'not_found');
    throw resourceMissing('claim');
  }
  ctx.audit([id, claim.patient]);
  return { status: 200, body: claim };
};
