/**
 * The type every handler is declared with: `export const x: AppHandler<'x'> = async (request, ctx) => ...`.
 * The request and the replies it may return come from the spec (`generated/routes.ts`).
 */

import type { Handler } from '../../contract/route-types.js';
import type { OperationTypes } from '../../generated/routes.js';
import type { HandlerContext } from '../http/context.js';

export type { HandlerContext };

/** The handler of operation `Id`, with the server's context. */
export type AppHandler<Id extends keyof OperationTypes> = Handler<
  OperationTypes[Id],
  HandlerContext
>;
