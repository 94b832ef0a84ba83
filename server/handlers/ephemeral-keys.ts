import { requireRecord } from '../domain/records.js';
import { createEphemeralKey as storeEphemeralKey } from '../repos/ephemeral-keys.js';
import { PATIENT } from '../resources/patient.js';
import type { AppHandler } from './types.js';

/** POST /v1/ephemeral_keys */
export const createEphemeralKey: AppHandler<'createEphemeralKey'> = async (request, ctx) => {
  const { patient, scopes } = request.body;
  return ctx.write(async (tx) => {
    // Another mode's patient is as missing as an unknown id: keys never cross modes.
    await requireRecord(PATIENT, tx, ctx.livemode, patient, 'patient');
    const { key, secret } = await storeEphemeralKey(tx, {
      livemode: ctx.livemode,
      patientId: patient,
      scopes,
      nowMs: ctx.now(),
      // The browser holding the key acts for the person its server named when minting it.
      actor: ctx.actor,
    });
    ctx.audit([patient, key.id]);
    return {
      status: 200,
      body: {
        id: key.id,
        object: 'ephemeral_key',
        livemode: key.livemode,
        created: key.created,
        expires: key.expiresAt ?? key.created,
        patient,
        scopes: [...scopes],
        secret,
      },
    };
  });
};
