/**
 * Patient-intake tokens (docs/design.md#keys): a publishable key turns patient fields into a
 * single-use `tok_…` valid 10 minutes; a server exchanges it with `createPatient {token}`. The
 * response never echoes the fields it carries.
 */
import { checkPatientFields } from '../domain/patients.js';
import { nowSeconds } from '../domain/serialize.js';
import { newId } from '../ids.js';
import { insertToken } from '../repos/tokens.js';
import type { AppHandler } from './types.js';

/** How long an intake token can be exchanged, in seconds (`expires` = `created` + 600). */
const TOKEN_TTL_SECONDS = 10 * 60;

/** POST /v1/tokens */
export const createToken: AppHandler<'createToken'> = async (request, ctx) => {
  const { type, patient } = request.body;
  // Refuse now what `createPatient` would refuse at exchange time.
  checkPatientFields(patient, ctx.now(), 'patient');
  return ctx.write(async (tx) => {
    const created = nowSeconds(ctx);
    const token = {
      id: newId('tok', ctx.now()),
      livemode: ctx.livemode,
      type,
      keyId: ctx.key.id,
      created,
      expiresAt: created + TOKEN_TTL_SECONDS,
      data: patient,
    };
    await insertToken(tx, token);
    ctx.audit([token.id]);
    return {
      status: 200,
      body: {
        id: token.id,
        object: 'token',
        livemode: token.livemode,
        created,
        expires: token.expiresAt,
        type,
        used: false,
      },
    };
  });
};
