/**
 * Conflicting updates sent at once, and the verdict on what came back: one workload shared by
 * the fast-tier tests (in-process `inject`), the two-process integration test and
 * `npm run bench:concurrency` (HTTP). Each scenario creates its object, fires a burst of
 * updates of it in parallel (spread over the given senders, e.g. two server processes), reads
 * the object and its events back, and asks `findSerialOrder` whether some serial order of the
 * burst, replayed through the server's domain rules, explains every reply and the final object.
 *
 * Per round it counts `lost`: acknowledged (200) changes missing from the final object, and
 * `illegal`: 1 when no serial order explains the run (an accepted move the state machine would
 * have refused, a 400 that no order gives, a reply no order produces) or the object's events
 * do not match the changes of that order one for one.
 */
import { planAppointmentUpdate } from '../../server/domain/appointment-update.js';
import { applyPatientUpdate } from '../../server/domain/patients.js';
import { applyWebhookUpdate } from '../../server/domain/webhook-update.js';
import { isApiError } from '../../server/errors.js';
import { type Apply, canonicalJson, findSerialOrder, type Outcome } from './serial-history.js';

/** A reply: status and parsed JSON body. */
export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: API objects are read field by field.
  body: any;
}

/**
 * The API version the workload's bodies are written in (appointment times as unix seconds):
 * an HTTP sender sends it as `PatientCare-Version`, as the test helpers do by default. The
 * domain rules it replays are the latest's; 2026-11-01 only changes how times are written.
 */
export const WORKLOAD_API_VERSION = '2026-11-01';

/** Sends one request with the workload's key; `path` starts with `/v1/`. */
export type Send = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<Reply>;

type Doc = Record<string, unknown> & { id: string };

/** One kind of conflicting burst. */
export interface Scenario {
  name: string;
  /** Creates the object the burst updates; returns it as the API returned it. */
  setup(send: Send, round: number): Promise<Doc>;
  /** The path of the object (`GET` reads it, `POST` updates it). */
  path(doc: Doc): string;
  /** The bodies sent at once. */
  burst(round: number): Array<Record<string, unknown>>;
  /** The server's rule for one update, from server/domain. */
  apply: Apply<Doc, Record<string, unknown>>;
  /** The event types the object's updates emit (`undefined`: endpoint changes emit none). */
  events?: string;
  /** Fields of an acknowledged body that must be in the final object (lost otherwise). */
  kept?(final: Doc, body: Record<string, unknown>): boolean;
}

/** What one round found. */
export interface RoundResult {
  scenario: string;
  requests: number;
  accepted: number;
  /** 200s whose change is missing at the end. */
  lost: number;
  /** 1 when no serial order explains the round, or its events do not match one. */
  illegal: number;
  /** Replies other than 200 and the domain's 4xx (5xx, 409 …): counted, never explained. */
  unexpected: number;
  /** Wall time of the burst (from the first request sent to the last reply). */
  burstMs: number;
  detail?: string;
}

/** Server-set timestamps the model cannot predict. */
const TIMESTAMPS = new Set(['updated', 'cancelled_at']);
const key = (doc: Doc) => canonicalJson(doc, TIMESTAMPS);

/** Runs a domain rule, turning its `ApiError` into the code the API would answer. */
function rule(
  fn: (doc: Doc, body: Record<string, unknown>) => Doc,
): Apply<Doc, Record<string, unknown>> {
  return (doc, body) => {
    try {
      return { ok: true, state: fn(doc, body) };
    } catch (error) {
      if (isApiError(error)) return { ok: false, code: error.code };
      throw error;
    }
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

async function ok(reply: Promise<Reply>, what: string): Promise<Doc> {
  const r = await reply;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Doc;
}

function createPatient(send: Send): Promise<Doc> {
  return ok(
    send('POST', '/v1/patients', { name: { family: 'Concurrency', given: ['Test'] } }),
    'createPatient',
  );
}

const patientRule = rule((doc, body) => ({
  ...applyPatientUpdate(doc as never, body as never, Date.now()),
}));
const appointmentRule = rule((doc, body) => ({
  ...planAppointmentUpdate(doc as never, body as never, nowSeconds()).appointment,
}));
const webhookRule = rule((doc, body) =>
  applyWebhookUpdate(
    doc as Doc & { updated: number; metadata: Record<string, string> },
    body as never,
    nowSeconds(),
  ),
);

/** Every field the body sets has that value at the end; metadata keys one by one. */
function keptFields(final: Doc, body: Record<string, unknown>): boolean {
  return Object.entries(body).every(([field, value]) => {
    if (field !== 'metadata') return JSON.stringify(final[field]) === JSON.stringify(value);
    const stored = (final.metadata ?? {}) as Record<string, string>;
    return Object.entries(value as Record<string, string>).every(([k, v]) => stored[k] === v);
  });
}

async function bookedAppointment(send: Send): Promise<Doc> {
  const patient = await createPatient(send);
  const start = nowSeconds() + 86_400;
  return ok(
    send('POST', '/v1/appointments', {
      patient: patient.id,
      practitioner: 'Dr. Race',
      start,
      end: start + 1800,
      confirm: true,
    }),
    'createAppointment',
  );
}

/** The scenarios: every resource kind the API updates, with its conflicting bursts. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'patient metadata keys',
    setup: createPatient,
    path: (doc) => `/v1/patients/${doc.id}`,
    burst: () => Array.from({ length: 20 }, (_, i) => ({ metadata: { [`k${i}`]: `v${i}` } })),
    apply: patientRule,
    events: 'patient.updated',
    kept: keptFields,
  },
  {
    name: 'patient fields',
    setup: createPatient,
    path: (doc) => `/v1/patients/${doc.id}`,
    burst: (round) => [
      { email: `race${round}@example.org` },
      { phone: `+1555555${String(round % 10_000).padStart(4, '0')}` },
      { birth_date: '1980-02-03' },
      { active: false },
      { gender: 'other' },
    ],
    apply: patientRule,
    events: 'patient.updated',
    kept: keptFields,
  },
  {
    name: 'webhook status vs description',
    setup: (send) =>
      ok(
        send('POST', '/v1/webhooks', {
          // Subscribed to an event the workload never causes: nothing is ever delivered.
          url: 'http://127.0.0.1:9/concurrency',
          enabled_events: ['claim.denied'],
        }),
        'createWebhook',
      ),
    path: (doc) => `/v1/webhooks/${doc.id}`,
    burst: (round) => [
      { status: 'disabled' },
      { description: `round ${round}` },
      { metadata: { owner: 'ops' } },
    ],
    apply: webhookRule,
    kept: keptFields,
  },
  {
    name: 'appointment status moves',
    setup: bookedAppointment,
    path: (doc) => `/v1/appointments/${doc.id}`,
    burst: () => [
      { status: 'noshow' },
      { status: 'arrived' },
      { status: 'checked_in' },
      { status: 'fulfilled' },
      { status: 'entered_in_error' },
    ],
    apply: appointmentRule,
    events: 'appointment.*',
  },
  {
    name: 'appointment reschedule vs cancel',
    setup: bookedAppointment,
    path: (doc) => `/v1/appointments/${doc.id}`,
    burst: () => {
      const start = nowSeconds() + 2 * 86_400;
      return [
        { status: 'cancelled', cancellation_reason: 'patient' },
        { start, end: start + 3600 },
        { status: 'arrived' },
        { metadata: { note: 'kept' } },
      ];
    },
    apply: appointmentRule,
    events: 'appointment.*',
  },
];

/**
 * One round of `scenario`: setup, the burst over `senders` (request i goes to sender
 * i mod n), then the verdict.
 */
export async function runRound(
  senders: readonly Send[],
  scenario: Scenario,
  round: number,
): Promise<RoundResult> {
  const [first] = senders;
  if (first === undefined) throw new Error('runRound needs at least one sender');
  // Read back rather than taken from the create reply, which may hold more (a webhook's
  // secret is returned once, on create).
  const path = scenario.path(await scenario.setup(first, round));
  const initial = await ok(first('GET', path), 'read before');
  const bodies = scenario.burst(round);
  const started = performance.now();
  const replies = await Promise.all(
    // `i % senders.length` is always an index of `senders`, so the fallback never applies.
    bodies.map((body, i) => (senders[i % senders.length] ?? first)('POST', path, body)),
  );
  const burstMs = performance.now() - started;
  const final = await ok(first('GET', path), 'read back');
  const result: RoundResult = {
    scenario: scenario.name,
    requests: bodies.length,
    accepted: replies.filter((r) => r.status === 200).length,
    lost: 0,
    illegal: 0,
    unexpected: 0,
    burstMs,
  };
  const outcomes: Outcome<Doc>[] = [];
  for (const reply of replies) {
    if (reply.status === 200) outcomes.push({ ok: true, reply: reply.body as Doc });
    else if (reply.status >= 400 && reply.status < 500 && reply.status !== 409) {
      outcomes.push({ ok: false, code: String(reply.body?.error?.code) });
    } else {
      result.unexpected += 1;
      outcomes.push({ ok: false, code: `http_${reply.status}` });
    }
  }
  const { kept } = scenario;
  if (kept) {
    result.lost = bodies.filter(
      (body, i) => replies[i]?.status === 200 && !kept(final, body),
    ).length;
  }
  const order = findSerialOrder({
    initial,
    requests: bodies,
    outcomes,
    final,
    apply: scenario.apply,
    key,
  });
  if (order === undefined) {
    result.illegal = 1;
    result.detail = `no serial order explains: ${replies.map((r, i) => `${JSON.stringify(bodies[i])} → ${r.status} ${r.status === 200 ? '' : r.body?.error?.code}`).join('; ')}; final status ${String(final.status)}`;
    return result;
  }
  if (scenario.events !== undefined) {
    const changes = countChanges(initial, bodies, order, scenario.apply);
    const events = await eventsOf(first, scenario.events, initial.id);
    if (events !== changes) {
      result.illegal = 1;
      result.detail = `${events} events for ${changes} accepted changes`;
    }
  }
  return result;
}

/** How many requests of the serial order changed the object (each emits one event). */
function countChanges(
  initial: Doc,
  bodies: ReadonlyArray<Record<string, unknown>>,
  order: readonly number[],
  apply: Scenario['apply'],
): number {
  let state = initial;
  let changes = 0;
  for (const i of order) {
    const body = bodies[i];
    // `order` holds indexes into `bodies` (findSerialOrder's answer), so none is missing.
    if (body === undefined) continue;
    const next = apply(state, body);
    if (!next.ok) continue;
    if (key(next.state) !== key(state)) changes += 1;
    state = next.state;
  }
  return changes;
}

/** Update events of object `id` among the newest 100 of `type` (the create event excluded). */
async function eventsOf(send: Send, type: string, id: string): Promise<number> {
  const page = await ok(
    send('GET', `/v1/events?type=${encodeURIComponent(type)}&limit=100`),
    'listEvents',
  );
  const data = page.data as Array<{ type: string; data: { object: { id: string } } }>;
  return data.filter((e) => e.data.object.id === id && !e.type.endsWith('.created')).length;
}

/** Totals over rounds. */
export interface Totals {
  rounds: number;
  requests: number;
  accepted: number;
  lost: number;
  illegal: number;
  unexpected: number;
  /** Sum of the bursts' wall times. */
  burstMs: number;
  details: string[];
}

export function totals(results: readonly RoundResult[]): Totals {
  const out: Totals = {
    rounds: results.length,
    requests: 0,
    accepted: 0,
    lost: 0,
    illegal: 0,
    unexpected: 0,
    burstMs: 0,
    details: [],
  };
  for (const r of results) {
    out.requests += r.requests;
    out.accepted += r.accepted;
    out.lost += r.lost;
    out.illegal += r.illegal;
    out.unexpected += r.unexpected;
    out.burstMs += r.burstMs;
    if (r.detail !== undefined) out.details.push(`${r.scenario}: ${r.detail}`);
  }
  return out;
}
