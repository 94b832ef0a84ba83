import { notImplemented } from './not-implemented.js';
import type { AppHandler } from './types.js';

/** GET /fhir/R4/metadata: stub added by `npm run generate`; replace it with the handler. */
export const readFhirCapabilities: AppHandler<'readFhirCapabilities'> = async () =>
  notImplemented('readFhirCapabilities');
