/**
 * Writes through an earlier release's API what it accepted: bodies from the contract fuzzer's
 * valid generators, drawn from that release's own schemas (its `generated/routes.ts`), plus the
 * edge values its rules let through — milliseconds-style and larger appointment times (any
 * integer ≥ 0 was a time then), the largest safe integers, empty and odd-Unicode text — and
 * updates that leave such values in events' `previous_attributes`. Only what the release
 * answered 200 is kept: that is what its users' databases can hold.
 */
import fc from 'fast-check';
import type { RouteDefinition } from '../../../contract/route-types.js';
import { validBody } from '../../../tooling/fuzz/operation-cases.js';
import type { RouteTable } from '../../../tooling/fuzz/response-checker.js';
import { HOSTILE_VALID_CHARACTERS } from '../../../tooling/fuzz/schema-arbitrary.js';
import { type Schema, SchemaRegistry } from '../../../tooling/fuzz/schema-registry.js';
import { emptyWorld } from '../../../tooling/fuzz/world.js';

/** What the release accepted, by kind. */
export interface Seeded {
  patients: string[];
  appointments: string[];
  /** Appointments left holding a time outside 1970..9999. */
  outOfRange: Set<string>;
  claims: string[];
  /** Endpoints pointing at the test's receiver, with their signing secrets. */
  webhooks: { id: string; secret: string; path: string }[];
  /** Requests the release answered with something else than 200: `POST /path status code param`. */
  refused: string[];
}

const MAX_SECONDS = 253_402_300_799;
const ODD = HOSTILE_VALID_CHARACTERS.join('');

/** Time pairs a client of the release could store: all integers ≥ 0, `end > start`. */
const EDGE_TIMES: ReadonlyArray<readonly [number, number]> = [
  [1_795_747_516_000, 1_795_749_316_000], // milliseconds sent as seconds
  [9_000_000_000_000, 9_000_000_001_800], // past what Date can hold
  [Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER],
  [MAX_SECONDS, MAX_SECONDS + 1],
  [0, 1],
];

export async function seedRelease(
  baseUrl: string,
  secret: string,
  table: RouteTable,
  receiverUrl: (path: string) => string,
  seed: number,
): Promise<Seeded> {
  const seeded: Seeded = {
    patients: [],
    appointments: [],
    outOfRange: new Set(),
    claims: [],
    webhooks: [],
    refused: [],
  };
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        'patientcare-version': '2026-11-01',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) {
      const error = (json.error ?? {}) as { code?: string; param?: string };
      const where = path.replace(/[a-z]+_[0-9A-Z]{26}/g, '{id}');
      seeded.refused.push(`${method} ${where} ${res.status} ${error.code} ${error.param}`);
    }
    return res.status === 200 ? json : undefined;
  };
  const components = Array.isArray(table.componentSchemas)
    ? (table.componentSchemas as Schema[])
    : (Object.values(table.componentSchemas) as Schema[]);
  const registry = new SchemaRegistry(components);
  const route = (operationId: string): RouteDefinition => {
    const found = table.routes.find((r) => r.operationId === operationId);
    if (found === undefined) throw new Error(`the release has no ${operationId}`);
    return found;
  };
  const world = emptyWorld();
  const samples = (operationId: string, count: number) => {
    const bodies = validBody(route(operationId), registry, world);
    if (bodies === undefined) throw new Error(`${operationId} takes no body`);
    return fc.sample(bodies, { numRuns: count, seed }).map((ruled) => ruled.body);
  };

  // Endpoints first, so every event below has its deliveries queued.
  for (const path of ['/a', '/b']) {
    const hook = await send('POST', '/v1/webhooks', {
      url: receiverUrl(path),
      enabled_events: ['*'],
    });
    if (hook) seeded.webhooks.push({ id: String(hook.id), secret: String(hook.secret), path });
  }

  // Empty text where the release allowed it (names had minLength 1; metadata values did not).
  const patientBodies: unknown[] = [
    { name: { family: ODD.slice(0, 100), given: [ODD.slice(0, 50)] }, metadata: { edge: '' } },
    { name: { family: 'E' }, metadata: { edge: ODD.slice(0, 500) } },
    ...samples('createPatient', 12),
  ];
  for (const body of patientBodies) {
    const made = await send('POST', '/v1/patients', body);
    if (made) seeded.patients.push(String(made.id));
  }
  world.patients = [...seeded.patients];

  const first = seeded.patients[0];
  if (first === undefined) throw new Error('the release accepted no patient');
  const appointmentBodies: unknown[] = [
    ...EDGE_TIMES.map(([start, end]) => ({ patient: first, practitioner: ODD, start, end })),
    ...EDGE_TIMES.map(([start, end]) => ({
      patient: first,
      practitioner: 'E',
      reason: ODD,
      start,
      end,
      confirm: true,
    })),
    { patient: first, practitioner: 'Dr Proposed' },
    ...samples('createAppointment', 16),
  ];
  for (const body of appointmentBodies) {
    const made = await send('POST', '/v1/appointments', body);
    if (made === undefined) continue;
    const id = String(made.id);
    seeded.appointments.push(id);
    if (outside(made.start) || outside(made.end)) seeded.outOfRange.add(id);
  }
  // One pending appointment per patient (same index), as the claim rules expect.
  for (const [i, patient] of seeded.patients.entries()) {
    const start = 1_795_747_516 + i * 3600;
    const made = await send('POST', '/v1/appointments', {
      patient,
      practitioner: 'Dr World',
      start,
      end: start + 1800,
    });
    if (made) seeded.appointments.push(String(made.id));
    world.appointments.push(made ? String(made.id) : '');
  }

  // Reschedules both ways and a cancellation: events whose previous_attributes hold the edges.
  const [msStyle, , , , , , msBooked] = seeded.appointments;
  const inRange = seeded.appointments.find((id) => !seeded.outOfRange.has(id));
  if (msStyle !== undefined) {
    const moved = await send('POST', `/v1/appointments/${msStyle}`, {
      start: 1795747516,
      end: 1795749316,
    });
    if (moved) seeded.outOfRange.delete(msStyle);
  }
  if (inRange !== undefined) {
    const moved = await send('POST', `/v1/appointments/${inRange}`, {
      start: 1_795_747_516_000,
      end: 1_795_749_316_000,
    });
    if (moved) seeded.outOfRange.add(inRange);
  }
  if (msBooked !== undefined)
    await send('POST', `/v1/appointments/${msBooked}`, { status: 'cancelled' });

  for (const body of samples('submitClaim', 8)) {
    const made = await send('POST', '/v1/claims', body);
    if (made) seeded.claims.push(String(made.id));
  }
  for (const id of seeded.patients.slice(0, 4)) {
    await send('POST', `/v1/patients/${id}`, { metadata: { edge: ODD.slice(0, 20) } });
  }
  return seeded;
}

function outside(value: unknown): boolean {
  return (
    typeof value === 'number' && (value > MAX_SECONDS || value < 0 || !Number.isInteger(value))
  );
}
