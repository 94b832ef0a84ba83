/**
 * One valid request per operation of the route table, built from seeded ids: what the
 * property-level, resource and canary tests send. `requestsFor` throws for an operation it
 * does not know, so a new operation fails the suite until it is added here.
 */
import type { HttpMethod } from '../../../contract/route-types.js';
import type { InjectRequest } from '../../support/inject.js';
import { claimBody, type SeededIds } from './security-app.js';

/** Which key an operation is sent with. */
export type KeyRole = 'secret' | 'publishable';

export interface OperationRequest {
  method: HttpMethod;
  url: string;
  body?: Record<string, unknown>;
  role: KeyRole;
}

/** PHI a request may carry; the canary test fills it with unique values. */
export interface Phi {
  family: string;
  given: string;
  birthDate: string;
  mrn: string;
  email: string;
}

export const PLAIN_PHI: Phi = {
  family: 'Plainfamily',
  given: 'Plaingiven',
  birthDate: '1970-01-01',
  mrn: 'MRN-PLAIN-1',
  email: 'plain@example.com',
};

/** A patient body carrying `phi`. */
export function patientBody(phi: Phi): Record<string, unknown> {
  return {
    name: { family: phi.family, given: [phi.given] },
    birth_date: phi.birthDate,
    email: phi.email,
    identifiers: [{ type: 'MR', system: 'https://clinic.example/mrn', value: phi.mrn }],
  };
}

/** A valid request for `operationId`. `hook` is a webhook id safe to delete. */
export function requestFor(
  operationId: string,
  ids: SeededIds,
  phi: Phi = PLAIN_PHI,
  hook: string = ids.wh,
): OperationRequest {
  const get = (url: string): OperationRequest => ({ method: 'GET', url, role: 'secret' });
  const post = (url: string, body: Record<string, unknown>, role: KeyRole = 'secret') => ({
    method: 'POST' as const,
    url,
    body,
    role,
  });
  switch (operationId) {
    case 'listPatients':
      return get('/v1/patients');
    case 'createPatient':
      return post('/v1/patients', patientBody(phi));
    case 'searchPatients':
      return post('/v1/patients/search', {
        family_name: phi.family,
        given_name: phi.given,
        birth_date: phi.birthDate,
        email: phi.email,
        identifier: { system: 'https://clinic.example/mrn', value: phi.mrn },
      });
    case 'retrievePatient':
      return get(`/v1/patients/${ids.pat}`);
    case 'updatePatient':
      return post(`/v1/patients/${ids.pat}`, { gender: 'unknown' });
    case 'listPractitioners':
      return get('/v1/practitioners');
    case 'createPractitioner':
      return post('/v1/practitioners', { name: { family: 'Lee' }, npi: '1234567893' });
    case 'retrievePractitioner':
      return get(`/v1/practitioners/${ids.prac}`);
    case 'updatePractitioner':
      return post(`/v1/practitioners/${ids.prac}`, { specialty: '207Q00000X' });
    case 'listAppointments':
      return get(`/v1/appointments?patient=${ids.pat}`);
    case 'createAppointment':
      return post('/v1/appointments', { patient: ids.pat, practitioner: 'Dr. Lee' });
    case 'retrieveAppointment':
      return get(`/v1/appointments/${ids.appt}`);
    case 'updateAppointment':
      return post(`/v1/appointments/${ids.appt}`, { location: 'Room 2' });
    case 'listClaims':
      return get('/v1/claims');
    case 'submitClaim':
      return post('/v1/claims', claimBody(ids.pat));
    case 'retrieveClaim':
      return get(`/v1/claims/${ids.clm}`);
    case 'listWebhooks':
      return get('/v1/webhooks');
    case 'createWebhook':
      return post('/v1/webhooks', { url: 'http://127.0.0.1:9/new', enabled_events: ['*'] });
    case 'retrieveWebhook':
      return get(`/v1/webhooks/${ids.wh}`);
    case 'updateWebhook':
      return post(`/v1/webhooks/${ids.wh}`, { description: 'updated' });
    case 'listWebhookDeliveries':
      return get(`/v1/webhooks/${ids.wh}/deliveries`);
    case 'deleteWebhook':
      return { method: 'DELETE', url: `/v1/webhooks/${hook}`, role: 'secret' };
    case 'listEvents':
      return get('/v1/events');
    case 'retrieveEvent':
      return get(`/v1/events/${ids.evt}`);
    case 'createToken':
      return post(
        '/v1/tokens',
        { type: 'patient_intake', patient: patientBody(phi) },
        'publishable',
      );
    case 'createEphemeralKey':
      return post('/v1/ephemeral_keys', { patient: ids.pat, scopes: ['patients:read'] });
    default:
      throw new Error(`no valid request known for ${operationId}: add it to operations.ts`);
  }
}

/** The request as `t.request` takes it. */
export function inject(req: OperationRequest, key: string, extra: Partial<InjectRequest> = {}) {
  return {
    method: req.method,
    url: req.url,
    key,
    ...(req.body === undefined ? {} : { body: req.body }),
    ...extra,
  } satisfies InjectRequest;
}
