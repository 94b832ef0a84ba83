/**
 * What a generated handler stub answers until its operation is written: 501 in the spec's error
 * envelope, so a client sees a well-formed error and never a stack trace.
 */

import type { NotImplementedReply } from '../../contract/route-types.js';
import { docUrl } from '../errors.js';

/**
 * The 501 reply for `operationId`. The HTTP layer fills `request_id` when it sends errors.
 *
 * @example export const listPatients: AppHandler<'listPatients'> = async () => notImplemented('listPatients');
 */
export function notImplemented(operationId: string): NotImplementedReply {
  return {
    status: 501,
    body: {
      error: {
        type: 'api_error',
        code: 'not_implemented',
        message: `The operation ${operationId} is not implemented yet.`,
        param: null,
        doc_url: docUrl('not_implemented'),
        request_id: null,
      },
    },
  };
}
