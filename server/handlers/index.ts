// Maintained by scripts/generate.ts (npm run generate): one spread per handler module.
import type { HandlerMap } from '../../contract/route-types.js';
import type { OperationTypes } from '../../generated/routes.js';
import * as appointments from './appointments.js';
import * as claims from './claims.js';
import * as ephemeralKeys from './ephemeral-keys.js';
import * as events from './events.js';
import * as fhirCapabilities from './fhir-capabilities.js';
import * as fhirPatients from './fhir-patients.js';
import * as fhirResources from './fhir-resources.js';
import * as health from './health.js';
import * as patients from './patients.js';
import * as practitioners from './practitioners.js';
import * as tokens from './tokens.js';
import type { HandlerContext } from './types.js';
import * as webhooks from './webhooks.js';

/** Every operation's handler; an operation without one is a compile error. */
export const handlers = {
  ...appointments,
  ...claims,
  ...ephemeralKeys,
  ...events,
  ...fhirCapabilities,
  ...fhirPatients,
  ...fhirResources,
  ...health,
  ...patients,
  ...practitioners,
  ...tokens,
  ...webhooks,
} satisfies HandlerMap<OperationTypes, HandlerContext>;
