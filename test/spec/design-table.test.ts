import { describe, expect, it } from 'vitest';
import { loadSpec } from './load-spec.js';

/**
 * The oracle: the endpoint table of docs/design.md#endpoints written out by hand (method,
 * path with `/v1`, operationId, scope) plus the key kinds of the spec's key table, and the
 * operations added since (marked). The spec must say exactly this, no more and no less.
 */
const DESIGN_TABLE: readonly (readonly [string, string, string, string | null])[] = [
  ['GET', '/v1/patients', 'listPatients', 'patients:read'],
  ['POST', '/v1/patients', 'createPatient', 'patients:write'],
  ['GET', '/v1/patients/{id}', 'retrievePatient', 'patients:read'],
  ['POST', '/v1/patients/{id}', 'updatePatient', 'patients:write'],
  ['POST', '/v1/patients/search', 'searchPatients', 'patients:read'],
  ['GET', '/v1/practitioners', 'listPractitioners', 'practitioners:read'],
  ['POST', '/v1/practitioners', 'createPractitioner', 'practitioners:write'],
  ['GET', '/v1/practitioners/{id}', 'retrievePractitioner', 'practitioners:read'],
  ['POST', '/v1/practitioners/{id}', 'updatePractitioner', 'practitioners:write'],
  ['GET', '/v1/appointments', 'listAppointments', 'appointments:read'],
  ['POST', '/v1/appointments', 'createAppointment', 'appointments:write'],
  ['GET', '/v1/appointments/{id}', 'retrieveAppointment', 'appointments:read'],
  ['POST', '/v1/appointments/{id}', 'updateAppointment', 'appointments:write'],
  ['POST', '/v1/claims', 'submitClaim', 'billing:write'],
  ['GET', '/v1/claims', 'listClaims', 'billing:read'],
  ['GET', '/v1/claims/{id}', 'retrieveClaim', 'billing:read'],
  ['GET', '/v1/webhooks', 'listWebhooks', 'webhooks:read'],
  ['POST', '/v1/webhooks', 'createWebhook', 'webhooks:write'],
  ['GET', '/v1/webhooks/{id}', 'retrieveWebhook', 'webhooks:read'],
  ['POST', '/v1/webhooks/{id}', 'updateWebhook', 'webhooks:write'],
  ['DELETE', '/v1/webhooks/{id}', 'deleteWebhook', 'webhooks:write'],
  // Added after the first table (additive): where an endpoint's delivery attempts are seen.
  ['GET', '/v1/webhooks/{id}/deliveries', 'listWebhookDeliveries', 'webhooks:read'],
  ['GET', '/v1/events', 'listEvents', 'events:read'],
  ['GET', '/v1/events/{id}', 'retrieveEvent', 'events:read'],
  ['POST', '/v1/tokens', 'createToken', null],
  ['POST', '/v1/ephemeral_keys', 'createEphemeralKey', null],
  // The FHIR R4 face (docs/design.md#fhir-r4), on the same scopes.
  ['GET', '/fhir/R4/Patient', 'searchFhirPatients', 'patients:read'],
  ['POST', '/fhir/R4/Patient', 'createFhirPatient', 'patients:write'],
  ['GET', '/fhir/R4/Patient/{id}', 'readFhirPatient', 'patients:read'],
  ['GET', '/fhir/R4/Appointment', 'searchFhirAppointments', 'appointments:read'],
  ['GET', '/fhir/R4/Appointment/{id}', 'readFhirAppointment', 'appointments:read'],
  ['GET', '/fhir/R4/Practitioner', 'searchFhirPractitioners', 'practitioners:read'],
  ['POST', '/fhir/R4/Practitioner/_search', 'searchFhirPractitionersByPost', 'practitioners:read'],
  ['GET', '/fhir/R4/Practitioner/{id}', 'readFhirPractitioner', 'practitioners:read'],
  ['GET', '/fhir/R4/Claim', 'searchFhirClaims', 'billing:read'],
  ['GET', '/fhir/R4/Claim/{id}', 'readFhirClaim', 'billing:read'],
  ['GET', '/fhir/R4/ClaimResponse', 'searchFhirClaimResponses', 'billing:read'],
  // FHIR search by POST (form-encoded), one per searchable type, on the GET's scope.
  ['POST', '/fhir/R4/Patient/_search', 'searchFhirPatientsByPost', 'patients:read'],
  ['POST', '/fhir/R4/Appointment/_search', 'searchFhirAppointmentsByPost', 'appointments:read'],
  ['POST', '/fhir/R4/Claim/_search', 'searchFhirClaimsByPost', 'billing:read'],
  ['POST', '/fhir/R4/ClaimResponse/_search', 'searchFhirClaimResponsesByPost', 'billing:read'],
  ['GET', '/fhir/R4/ClaimResponse/{id}', 'readFhirClaimResponse', 'billing:read'],
];

/**
 * Beyond the endpoint table (docs/design.md#endpoints): the unauthenticated health probes,
 * outside `/v1`, with `security: []` and neither scopes nor key kinds.
 */
const PUBLIC_OPERATIONS: readonly (readonly [string, string, string])[] = [
  ['GET', '/healthz', 'checkLiveness'],
  ['GET', '/readyz', 'checkReadiness'],
  ['GET', '/fhir/R4/metadata', 'readFhirCapabilities'],
];

/** Key kinds per the conventions: normal operations are for secret and restricted keys. */
const KEY_KINDS: Readonly<Record<string, readonly string[]>> = {
  retrievePatient: ['secret', 'restricted', 'ephemeral'],
  listAppointments: ['secret', 'restricted', 'ephemeral'],
  retrieveAppointment: ['secret', 'restricted', 'ephemeral'],
  createAppointment: ['secret', 'restricted', 'ephemeral'],
  createToken: ['publishable'],
  createEphemeralKey: ['secret'],
};
const DEFAULT_KEY_KINDS = ['secret', 'restricted'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface SpecOperation {
  method: string;
  path: string;
  operationId: unknown;
  scopes: unknown;
  keyKinds: unknown;
  security: unknown;
  tags: unknown;
}

function operationsOf(document: Record<string, unknown>): SpecOperation[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
  const found: SpecOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      found.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        scopes: operation['x-scopes'],
        keyKinds: operation['x-key-kinds'],
        security: operation.security,
        tags: operation.tags,
      });
    }
  }
  return found;
}

const operations = operationsOf(loadSpec());
const byRoute = new Map(operations.map((op) => [`${op.method} ${op.path}`, op]));

describe('the spec matches the endpoint table of docs/design.md', () => {
  it.each(DESIGN_TABLE)('%s %s is %s with scope %s', (method, path, operationId, scope) => {
    const operation = byRoute.get(`${method} ${path}`);
    expect(operation, `${method} ${path} is missing`).toBeDefined();
    expect(operation?.operationId).toBe(operationId);
    expect(operation?.scopes).toEqual(scope === null ? [] : [scope]);
  });

  it('has no operation the table lacks', () => {
    const expected = new Set(
      [...DESIGN_TABLE, ...PUBLIC_OPERATIONS].map(([method, path]) => `${method} ${path}`),
    );
    const extra = operations
      .map((op) => `${op.method} ${op.path}`)
      .filter((route) => !expected.has(route));
    expect(extra).toEqual([]);
  });

  it.each(PUBLIC_OPERATIONS)(
    '%s %s is %s, public: no key, scopes or key kinds',
    (method, path, operationId) => {
      const operation = byRoute.get(`${method} ${path}`);
      expect(operation?.operationId).toBe(operationId);
      expect(operation?.security).toEqual([]);
      expect(operation?.scopes).toBeUndefined();
      expect(operation?.keyKinds).toBeUndefined();
    },
  );

  it('uses each operationId once', () => {
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(DESIGN_TABLE)('%s %s (%s) declares the key kinds of the conventions', (...row) => {
    const operationId = row[2];
    const operation = operations.find((op) => op.operationId === operationId);
    const want = KEY_KINDS[operationId] ?? DEFAULT_KEY_KINDS;
    expect(operation?.keyKinds).toEqual(want);
  });

  it('gives every operation exactly one of the agreed tags', () => {
    const tags = new Set([
      'Patients',
      'Practitioners',
      'Appointments',
      'Claims',
      'Webhooks',
      'Events',
      'Tokens',
      'Ephemeral Keys',
      'Health',
      'FHIR Capabilities',
      'FHIR Patients',
      'FHIR Appointments',
      'FHIR Practitioners',
      'FHIR Claims',
      'FHIR Claim Responses',
    ]);
    for (const operation of operations) {
      expect(operation.tags, String(operation.operationId)).toHaveLength(1);
      expect(
        tags.has(String((operation.tags as unknown[])[0])),
        String(operation.operationId),
      ).toBe(true);
    }
  });
});
