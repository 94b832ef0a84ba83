/**
 * The set-up phase (real objects for valid cases to name) and the fresh objects single cases
 * ask for. Sent straight to the service; any failure here stops the run, since every later
 * verdict would rest on it.
 */
import { send } from './http.js';
import type { Service } from './service.js';
import {
  type Booking,
  emptyWorld,
  type FreshKind,
  SETUP_HOOK_URL,
  setupPatient,
  setupPractitioner,
  type World,
} from './world.js';

// Per service, so every database gets the same set-up patients in the same order (the
// answers of two databases are compared).
const counters = new WeakMap<Service, number>();
function next(service: Service): number {
  const n = (counters.get(service) ?? 0) + 1;
  counters.set(service, n);
  return n;
}

/** The `PatientCare-Version` header of a run pinned to a version; none otherwise. */
export function versionHeader(service: Service): Record<string, string> {
  return service.apiVersion === undefined ? {} : { 'PatientCare-Version': service.apiVersion };
}

async function post(service: Service, path: string, body: unknown, key = service.secret) {
  const res = await send(service.baseUrl, {
    method: 'POST',
    url: path,
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      ...versionHeader(service),
    },
    body: JSON.stringify(body),
  });
  const id = (res.body as { id?: unknown } | undefined)?.id;
  if (res.status !== 200 || typeof id !== 'string') {
    throw new Error(`set-up POST ${path} failed: ${res.status} ${res.text.slice(0, 500)}`);
  }
  return id;
}

/** Tomorrow, half an hour, in the form the run's version takes. */
function span(booking: Booking): { start: number | string; end: number | string } {
  const start = Math.floor(Date.now() / 1000) + 86_400;
  if (booking.unixTimes) return { start, end: start + 1800 };
  const text = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;
  return { start: text(start), end: text(start + 1800) };
}

/**
 * Creates the shared objects: 2 practitioners, 3 patients, an appointment each (with a
 * practitioner), 2 claims (moved to `accepted`), 2 webhooks.
 */
export async function buildWorld(service: Service, booking: Booking): Promise<World> {
  const world = emptyWorld();
  for (let n = 0; n < 2; n++) {
    world.practitioners.push(
      await post(service, '/v1/practitioners', setupPractitioner(next(service))),
    );
  }
  for (let n = 0; n < 3; n++) {
    const patient = await post(service, '/v1/patients', setupPatient(next(service)));
    world.patients.push(patient);
    world.appointments.push(
      await post(service, '/v1/appointments', {
        patient,
        practitioner: 'Dr Fuzz',
        ...(booking.practitionerId
          ? { practitioner_id: world.practitioners[n % world.practitioners.length] }
          : {}),
        ...span(booking),
      }),
    );
  }
  for (let n = 0; n < 2; n++) {
    world.claims.push(
      await post(service, '/v1/claims', {
        patient: world.patients[n],
        ...(n === 0 ? { appointment: world.appointments[0] } : {}),
        billing_type: 'self_pay',
        type: 'professional',
        billing_provider: { npi: '1234567893', tax_id: '12-3456789' },
        diagnoses: [{ sequence: 1, system: 'icd10', code: 'E11.9' }],
        line_items: [
          {
            sequence: 1,
            procedure_code: '99213',
            diagnosis_sequences: [1],
            service_date: '2020-01-02',
            quantity: 1,
            unit_amount: 12500,
          },
        ],
        currency: 'usd',
      }),
    );
    world.webhooks.push(
      await post(service, '/v1/webhooks', { url: SETUP_HOOK_URL, enabled_events: ['*'] }),
    );
  }
  // submitted → accepted: a claim has a FHIR ClaimResponse once the clearinghouse answered.
  for (const claim of world.claims) await service.advanceClaim(claim);
  const events = await send(service.baseUrl, {
    method: 'GET',
    url: '/v1/events?limit=5',
    headers: { Authorization: `Bearer ${service.secret}`, ...versionHeader(service) },
  });
  for (const event of (events.body as { data?: { id: string }[] }).data ?? []) {
    world.events.push(event.id);
  }
  return world;
}

/** Makes the fresh object a case asked for and returns its id. */
export async function makeFresh(
  service: Service,
  world: World,
  booking: Booking,
  kind: FreshKind,
): Promise<string> {
  const patient = world.patients[0];
  switch (kind) {
    case 'patient':
      return post(service, '/v1/patients', setupPatient(next(service)));
    case 'practitioner':
      return post(service, '/v1/practitioners', setupPractitioner(next(service)));
    case 'appointment-pending':
      return post(service, '/v1/appointments', {
        patient,
        practitioner: 'Dr Fuzz',
        ...span(booking),
      });
    case 'appointment-booked':
      return post(service, '/v1/appointments', {
        patient,
        practitioner: 'Dr Fuzz',
        confirm: true,
        ...span(booking),
      });
    case 'webhook':
      return post(service, '/v1/webhooks', { url: SETUP_HOOK_URL, enabled_events: ['*'] });
    case 'token':
      return post(
        service,
        '/v1/tokens',
        { type: 'patient_intake', patient: setupPatient(next(service)) },
        service.publishable,
      );
  }
}
