/**
 * The acting person or system of a request (docs/design.md#keys): the `PatientCare-Actor`
 * header, checked against the key that carries it. The id is opaque to the service and only
 * ever stored on the request's audit rows; messages never echo it.
 */
import { ACTOR_HEADER, isActor } from '../../contract/actor.js';
import { ApiError } from '../errors.js';
import type { AuthenticatedKey } from './auth.js';

/**
 * The actor to audit for a request, or null when it names none. Throws `400` in the error
 * envelope (`param`: `PatientCare-Actor`):
 * - `parameter_invalid`: not 1–64 characters of `[A-Za-z0-9._:@-]` (a repeated header too,
 *   which Node joins with `, `); on an ephemeral key, a value other than the actor it was
 *   minted for (the minting server named the person; a page cannot rename them).
 * - `parameter_missing`: the key was created with `--require-actor` and none was sent.
 */
export function requestActor(
  header: string | string[] | undefined,
  key: Pick<AuthenticatedKey, 'kind' | 'requireActor' | 'actor'>,
): string | null {
  if (header !== undefined && !isActor(header)) {
    throw new ApiError('parameter_invalid', {
      param: ACTOR_HEADER,
      message: `${ACTOR_HEADER} takes 1-64 characters of A-Z, a-z, 0-9 and . _ : @ - (an opaque id of the person or system acting, never PHI).`,
    });
  }
  const sent = header ?? null;
  if (key.kind === 'ephemeral') {
    if (sent !== null && sent !== key.actor) {
      throw new ApiError('parameter_invalid', {
        param: ACTOR_HEADER,
        message:
          key.actor === null
            ? `This ephemeral key was created without an actor; send no ${ACTOR_HEADER} with it.`
            : `This ephemeral key was created for another actor; send its actor or no ${ACTOR_HEADER}.`,
      });
    }
    return key.actor;
  }
  if (sent === null && key.requireActor) {
    throw new ApiError('parameter_missing', {
      param: ACTOR_HEADER,
      message: `This API key requires the ${ACTOR_HEADER} header: the id of the person or system making the request.`,
    });
  }
  return sent;
}

/** The actor for a refusal's audit row: the request's when it is acceptable, else none. */
export function actorIfValid(
  header: string | string[] | undefined,
  key: Pick<AuthenticatedKey, 'kind' | 'requireActor' | 'actor'>,
): string | null {
  try {
    return requestActor(header, key);
  } catch {
    return null;
  }
}
